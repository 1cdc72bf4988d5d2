import { userAuth } from './nats/auth';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformTools, ToolReply, ToolRequest, toolNames } from '../../../shared/platform-tools';
import { testCore, coreDb } from '../../../test/helpers/core';
import { dbSnapshot } from '../../../test/helpers/db-snapshot';
import { malformedFor, notJson } from '../../../test/helpers/malformed';
import { waitFor } from '../../../test/helpers/wait';
import type { Core } from '..';
import { connectRun, type RunClient } from '../../../test/helpers/run-client';
import { HookMessage } from '../sessions/hooks/hook-events';
import { insertSession } from '../../../test/helpers/session-row';

const json = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v ?? null));
const bytes = (s: string): Uint8Array => Buffer.from(s, 'latin1');

// Issue 17, item 6: 1,000 generated malformed messages on each NATS platform subject, sent with the
// credentials a worker holds: tools.invoke.<run> answers each with a typed error; nexus.hooks.<ws>
// ignores each. No row changes and core keeps serving.
describe('NATS platform subjects under malformed input', () => {
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  let run: RunClient;
  let hooks: NatsConnection;
  let hookSubject: string;
  let runSubject: string;
  const workspaceId = `ws${randomUUID().replace(/-/g, '')}`;
  const sessionId = randomUUID();
  const sentinelId = randomUUID();

  beforeAll(async () => {
    env = await testCore();
    core = env.core;
    const agent = core.platform.createAgent({ name: 'prober' });
    const runCreds = await core.platform.createRun(agent.id);
    runSubject = runCreds.subject;
    run = await connectRun(runCreds);
    const now = new Date().toISOString();
    coreDb(core)
      .prepare(
        `INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES (?, 'probe', '/r', 'stopped', 'v', ?, ?)`,
      )
      .run(workspaceId, now, now);
    for (const [id, name] of [
      [sessionId, 'target'],
      [sentinelId, 'sentinel'],
    ])
      insertSession(coreDb(core), { id, workspace_id: workspaceId, name, agent_state: 'starting' });
    const creds = await core.platform.createHookPublisher(workspaceId);
    hookSubject = creds.subject;
    hooks = await connect({ servers: creds.natsUrl, ...userAuth(creds.password ?? '') });
  });
  afterAll(async () => {
    await hooks?.close();
    await run?.close();
    await env?.cleanup();
  });

  it('answers every malformed tool request with a typed error and changes nothing', async () => {
    const before = dbSnapshot(coreDb(core));
    const payload = fc.oneof(
      malformedFor(ToolRequest).map(json),
      fc
        .constantFrom(...toolNames)
        .chain((tool) => malformedFor(platformTools[tool].args, {}).map((args) => json({ tool, args }))),
      fc
        .string({ minLength: 1, maxLength: 100 })
        .filter((t) => !toolNames.includes(t as never))
        .map((tool) => json({ tool, args: {} })),
      notJson.map(bytes),
    );
    await fc.assert(
      fc.asyncProperty(payload, async (data) => {
        const msg = await run.nc.request(runSubject, data, { timeout: 5_000 });
        const reply = ToolReply.parse(msg.json());
        const what = Buffer.from(data).toString('latin1').slice(0, 200);
        expect('error' in reply && reply.error, what).toBeTruthy();
        if ('error' in reply)
          expect(['bad_request', 'not_found'], `${what} -> ${reply.error.message}`).toContain(reply.error.code);
      }),
      { numRuns: 1000, seed: 17 },
    );
    expect(dbSnapshot(coreDb(core))).toEqual(before);
    expect(await run.call('skill.list', {})).toHaveProperty('result');
  }, 120_000);

  it('ignores every malformed or misaddressed hook event and changes nothing', async () => {
    const before = dbSnapshot(coreDb(core));
    const at = new Date(Date.now() + 60_000).toISOString();
    const event = fc.oneof(
      malformedFor(HookMessage).map(json),
      // Shaped like the real session's events, but broken in one place.
      fc
        .record({
          sessionId: fc.constant(sessionId),
          workspaceId: fc.constant(workspaceId),
          at: fc.oneof(fc.constant(at), fc.string()),
          event: fc.oneof(
            fc.jsonValue({ maxDepth: 2 }),
            fc.record({ hook_event_name: fc.constantFrom('PreToolUse', 'Stop') }),
          ),
        })
        .filter((m) => !HookMessage.safeParse(m).success)
        .map(json),
      // Well formed, but claiming another workspace than the subject's: never applied.
      fc
        .string({ minLength: 1, maxLength: 100 })
        .filter((w) => w !== workspaceId)
        .map((w) => json({ sessionId, workspaceId: w, at, event: { hook_event_name: 'PermissionRequest' } })),
      notJson.map(bytes),
    );
    await fc.assert(
      fc.asyncProperty(event, async (data) => {
        hooks.publish(hookSubject, data);
      }),
      { numRuns: 1000, seed: 17 },
    );
    // Messages on one connection arrive in order: once the sentinel's event lands, all the others have.
    hooks.publish(
      hookSubject,
      json({ sessionId: sentinelId, workspaceId, at, event: { hook_event_name: 'PreToolUse' } }),
    );
    await hooks.flush();
    const stateOf = (id: string) =>
      (coreDb(core).prepare('SELECT agent_state AS s FROM sessions WHERE id = ?').get(id) as { s: string }).s;
    await waitFor(() => stateOf(sentinelId) === 'working', 'the sentinel hook to land');
    const after = dbSnapshot(coreDb(core));
    expect({ ...after, sessions: null }).toEqual({ ...before, sessions: null });
    expect(stateOf(sessionId)).toBe('starting');
  }, 120_000);
});
