import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertSession } from '../../../../test/helpers/session-row';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { EventBus } from '../../events';
import { createLogger } from '../../log';
import { Redactor } from '../../redact';
import { openStore, type Db } from '../../store/open';
import type { ExecResult } from '../../docker';
import type { WorkspaceInfo } from '../../workspaces/runtime';
import { SessionsConfig } from '../config';
import { SessionService, type SessionRuntime } from '../session-service';
import { testDrivers } from '../../../../test/helpers/agent-drivers';

const ok = (stdout: string): ExecResult => ({ exitCode: 0, stdout, stderr: '', cut: { stdout: 0, stderr: 0 } });

/**
 * A message to a session whose agent is still starting (a create under load, a relaunch after a container
 * restart: the soak sent one to soak4 in that window and got `unavailable`). The agent announces its inbox with
 * its SessionStart hook, so the message waits for that start, then goes. The inbox helper here answers
 * `socket_missing` until the stand-in agent has announced its inbox.
 */
describe('a message to a session whose agent is starting', () => {
  const dir = tempDir('nexus-message-starting-');
  const log = createLogger({ redactor: new Redactor() });
  const ws: WorkspaceInfo = { id: 'w1', name: 'alpha', containerId: 'c1', running: true };
  let db: Db;
  let announced: Set<string>;
  let sends: string[];
  const make = (): SessionService => {
    const runtime: SessionRuntime = {
      run: (_id, job) => job(),
      exec: async (_target, argv) => {
        // The inbox helper: `<node> nexus-inbox-send.cjs <stateDir> <sessionId>` (behind inbox-helper.ts's `sh`).
        const helper = argv.findIndex((a) => a.endsWith('nexus-inbox-send.cjs'));
        if (helper < 0) throw new Error(`unexpected exec: ${argv.join(' ')}`);
        const sessionId = argv[helper + 2] ?? '';
        sends.push(sessionId);
        return ok(JSON.stringify({ outcome: announced.has(sessionId) ? 'delivered' : 'socket_missing' }));
      },
      info: () => ws,
      find: () => ws,
      list: () => [ws],
      idle: () => Promise.resolve(),
    };
    return new SessionService({
      db,
      events: new EventBus(new Redactor(), log),
      log,
      config: SessionsConfig.parse({}),
      runtime,
      tools: { hookScript: '', inboxSendScript: '', relayScript: '' },
      hookTarget: () => null,
      maxSessionsPerWorkspace: 16,
      drivers: testDrivers(),
    });
  };
  /** What the SessionStart hook does: the inbox is there, the agent is at its prompt. */
  const start = (id: string): void => {
    announced.add(id);
    db.prepare("UPDATE sessions SET agent_state = 'idle' WHERE id = ?").run(id);
  };

  beforeEach(() => {
    db = openStore(join(dir.path, `${Math.random()}.db`));
    db.pragma('foreign_keys = OFF');
    announced = new Set();
    sends = [];
  });
  afterEach(() => db.close());
  afterAll(() => dir.remove());

  it('waits for the agent’s start and delivers once its inbox is announced', async () => {
    const service = make();
    const s = insertSession(db, { workspace_id: 'w1', name: 'relaunched', agent_state: 'starting' });
    const sent = service.sendMessage(s.id, 'sent during the relaunch');
    await new Promise((r) => setTimeout(r, 700));
    start(s.id);
    await expect(sent).resolves.toMatchObject({ sessionId: s.id, status: 'delivered' });
    expect(sends).toEqual([s.id, s.id]);
  });

  it('is `unavailable` at once for an agent that is not starting, and tries the inbox only once', async () => {
    const service = make();
    const s = insertSession(db, { workspace_id: 'w1', name: 'idle', agent_state: 'idle' });
    const t0 = Date.now();
    await expect(service.sendMessage(s.id, 'hello?')).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/inbox socket of session idle is missing/),
    });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(sends).toEqual([s.id]);
  });

  it('stops waiting when the starting agent exits instead, and says it exited', async () => {
    const service = make();
    const s = insertSession(db, { workspace_id: 'w1', name: 'crashed', agent_state: 'starting' });
    const sent = service.sendMessage(s.id, 'to an agent that will not start');
    await new Promise((r) => setTimeout(r, 500));
    db.prepare("UPDATE sessions SET agent_state = 'exited', agent_message = 'Session ended (other)' WHERE id = ?").run(
      s.id,
    );
    await expect(sent).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/agent of session crashed has exited \(Session ended \(other\)\): restart/),
    });
    expect(sends).toEqual([s.id]);
  });
});
