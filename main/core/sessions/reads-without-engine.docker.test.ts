import { userAuth } from '../platform/nats/auth';
import { connect } from '@nats-io/transport-node';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../shared/contract/sessions';
import { testCore, coreDb } from '../../../test/helpers/core';
import { countingDockerSocket, workspaceTestConfig } from '../../../test/helpers/docker';
import { waitFor } from '../../../test/helpers/wait';
import { operatorContext } from '../handlers';
import type { Core } from '..';
import { insertSession } from '../../../test/helpers/session-row';

const op = operatorContext('internal');

/**
 * Reads have no side effects: a hook event, `sessions.get` and `workspaces.list` answer from the
 * store and never ask the Docker engine (every call the core makes is counted on its way there).
 */
describe('reads and hook events without the engine', () => {
  let counter: Awaited<ReturnType<typeof countingDockerSocket>>;
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  const name = `wsr-${randomBytes(3).toString('hex')}`;
  const workspaceId = `w${randomBytes(6).toString('hex')}`;
  const sessionId = randomUUID();

  beforeAll(async () => {
    counter = await countingDockerSocket();
    env = await testCore(workspaceTestConfig({ socketPath: counter.socketPath }));
    core = env.core;
    await core.sessions.idle();
    // A running workspace and one of its sessions, as a finished create leaves them in the store.
    const now = new Date().toISOString();
    coreDb(core)
      .prepare(
        `INSERT INTO workspaces (id, name, repo_url, status, container_id, volume, created_at, updated_at)
         VALUES (?, ?, 'https://example.com/r.git', 'running', ?, ?, ?, ?)`,
      )
      .run(workspaceId, name, `c${randomBytes(16).toString('hex')}`, `nexus-test-${workspaceId}`, now, now);
    insertSession(coreDb(core), { id: sessionId, workspace_id: workspaceId, name: 'one' });
  }, 120_000);

  afterAll(async () => {
    await env?.cleanup();
    await counter?.close();
  });

  it('applies 100 hook events, answers sessions.get and workspaces.list, and asks the engine nothing', async () => {
    const seen: Session[] = [];
    const sub = core.events.subscribe((e) => {
      const s = (e.payload as { session?: Session | null }).session;
      if (e.name === 'sessions.changed' && s?.id === sessionId) seen.push(s);
    });
    const hooks = await core.platform.createHookPublisher(workspaceId);
    const nc = await connect({ servers: hooks.natsUrl, ...userAuth(hooks.password ?? '') });
    const before = counter.requests().length;
    try {
      const start = Date.now();
      for (let i = 0; i < 100; i++) {
        const event =
          i % 2 === 0
            ? { hook_event_name: 'UserPromptSubmit' }
            : { hook_event_name: 'Notification', notification_type: 'permission_prompt', message: `ask ${i}` };
        const at = new Date(start + i).toISOString();
        nc.publish(hooks.subject, JSON.stringify({ sessionId, workspaceId, at, event }));
      }
      await nc.flush();
      await waitFor(() => seen.length >= 100, '100 sessions.changed events');
      const session = await core.dispatcher.call('sessions.get', { session: sessionId }, op);
      const { workspaces } = await core.dispatcher.call('workspaces.list', {}, op);
      expect(counter.requests().slice(before)).toEqual([]);
      expect(session).toMatchObject({ workspaceName: name, agentState: 'waiting_permission', agentMessage: 'ask 99' });
      expect(workspaces.find((w) => w.id === workspaceId)?.status).toBe('running');
      expect(seen.every((s) => s.workspaceName === name)).toBe(true);
    } finally {
      sub.dispose();
      await nc.close();
    }
  });

  it("removes the workspace's NATS hook user when the workspace is deleted", async () => {
    const hooks = await core.platform.createHookPublisher(workspaceId);
    const login = () => connect({ servers: hooks.natsUrl, ...userAuth(hooks.password ?? ''), reconnect: false });
    await (await login()).close();
    await core.dispatcher.call('workspaces.delete', { workspace: name }, op);
    await waitFor(
      () =>
        login().then(
          async (nc) => (await nc.close(), false),
          (e: unknown) => /Authorization/i.test(String(e)),
        ),
      'the hook user to be refused',
      10_000,
    );
    await expect(core.dispatcher.call('sessions.get', { session: sessionId }, op)).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
