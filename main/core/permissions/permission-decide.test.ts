import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestOnce } from '../../../resources/worker/nexus-hook/nats-publish';
import { operatorContext } from '../handlers';
import { accessLevels } from '../../../shared/contract';
import { platformFixture } from '../../../test/helpers/platform-fixture';
import { coreDb } from '../../../test/helpers/core';
import { insertSession } from '../../../test/helpers/session-row';

type Fixture = Awaited<ReturnType<typeof platformFixture>>;

/** The worker's own request code (nexus-hook) against core over the managed nats-server. */
describe('permission decisions over NATS', () => {
  let f: Fixture;
  let hook: { url: string; user: string; pass: string };
  beforeEach(async () => {
    f = await platformFixture({ sessions: { permissionWaitMs: 60_000 } });
    const c = await f.core.platform.createHookPublisher('ws1');
    hook = { url: c.natsUrl, user: c.user ?? '', pass: c.password ?? '' };
    coreDb(f.core).pragma('foreign_keys = OFF');
    insertSession(coreDb(f.core), {
      id: 's1',
      workspace_id: 'ws1',
      name: 'alpha',
      agent_state: 'waiting_permission',
      agent_state_at: new Date().toISOString(),
    });
  });
  afterEach(async () => f.cleanup());

  const ask = (toolInput: unknown, waitMs = 20_000) =>
    requestOnce(
      hook,
      'nexus.permissions.ws1',
      `nexus.permission-replies.ws1.${Math.random().toString(36).slice(2)}`,
      JSON.stringify({
        sessionId: 's1',
        workspaceId: 'ws1',
        at: new Date().toISOString(),
        toolName: 'Bash',
        toolInput,
      }),
      waitMs,
    );

  it('holds the request until the operator decides, then answers the waiting hook', async () => {
    const answer = ask({ command: 'touch /tmp/allowed' });
    await expect
      .poll(async () => (await f.core.dispatcher.call('permissions.list', {}, operatorContext('http'))) as never)
      .toMatchObject({
        requests: [{ sessionId: 's1', toolName: 'Bash', toolInput: { command: 'touch /tmp/allowed' } }],
      });
    const { requests } = (await f.core.dispatcher.call('permissions.list', {}, operatorContext('http'))) as {
      requests: { id: string }[];
    };
    await f.core.dispatcher.call(
      'permissions.decide',
      { id: requests[0]?.id, behavior: 'deny', note: 'not now' },
      operatorContext('http'),
    );
    expect(JSON.parse((await answer) ?? 'null')).toEqual({ behavior: 'deny', message: 'not now' });
    // One audit row for the decision, the one that says what was decided (not a second from the dispatcher).
    const rows = f.core.audit.recent(20).filter((r) => r.operation === 'permissions.decide');
    expect(rows.map((r) => r.outcome)).toEqual(['denied_with_note']);
    expect((await f.core.dispatcher.call('permissions.list', {}, operatorContext('http'))) as never).toEqual({
      requests: [],
    });
  });

  it('refuses decide and list to an MCP token of every class', async () => {
    // A call the approval rules always ask about (a harmless one, `true`, they would allow at once).
    void ask({ command: 'git push' });
    await expect.poll(() => f.core.permissions.list().length).toBe(1);
    const id = f.core.permissions.list()[0]?.id;
    for (const access of accessLevels.filter((a) => a !== 'operator')) {
      const ctx = { transport: 'mcp' as const, caller: { kind: 'token' as const, tokenId: 't', name: 't', access } };
      const forbidden = { code: 'forbidden' };
      await expect(f.core.dispatcher.call('permissions.decide', { id, behavior: 'allow' }, ctx)).rejects.toMatchObject(
        forbidden,
      );
      await expect(f.core.dispatcher.call('permissions.list', {}, ctx)).rejects.toMatchObject(forbidden);
    }
    expect(f.core.permissions.list()).toHaveLength(1);
  });

  it("cannot be answered by a publish from the worker's hook credentials onto the reply subject", async () => {
    const replyTo = 'nexus.permission-replies.ws1.forged';
    const answer = requestOnce(
      hook,
      'nexus.permissions.ws1',
      replyTo,
      JSON.stringify({
        sessionId: 's1',
        workspaceId: 'ws1',
        at: new Date().toISOString(),
        toolName: 'Bash',
        toolInput: {},
      }),
      3000,
    );
    await expect.poll(() => f.core.permissions.list().length).toBe(1);
    // The hook user trying to answer itself: the server refuses the publish, so the hook hears nothing.
    const forged = await requestOnce(hook, replyTo, 'nexus.permission-replies.ws1.x', '{"behavior":"allow"}', 1000);
    expect(forged).toBeNull();
    expect(await answer).toBeNull();
    expect(f.core.permissions.list()).toHaveLength(1);
  });
});
