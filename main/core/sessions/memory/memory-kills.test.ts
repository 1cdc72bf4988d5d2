import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveAttention } from '../../../../shared/attention';
import { insertSession } from '../../../../test/helpers/session-row';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { waitFor } from '../../../../test/helpers/wait';
import { EventBus } from '../../events';
import { createLogger } from '../../log';
import { Redactor } from '../../redact';
import { openStore, type Db } from '../../store/open';
import type { ExecResult } from '../../docker';
import type { WorkspaceInfo } from '../../workspaces/runtime';
import { WorkspaceEvents } from '../../workspaces/workspace-events';
import { SessionsConfig } from '../config';
import { parseContainerMemory } from './container-memory';
import { SessionService, type SessionRuntime } from '../session-service';
import { testDrivers } from '../../../../test/helpers/agent-drivers';

const GIB = 1024 ** 3;
const ok = (stdout: string): ExecResult => ({ exitCode: 0, stdout, stderr: '', cut: { stdout: 0, stderr: 0 } });

/** What the container shows: the cgroup's OOM kill counter and limit, the live tmux windows, the inbox. */
interface Container {
  oomKills: number;
  windows: string[];
}

/** A workspace `alpha` whose container answers the memory probe, `tmux list-windows` and the inbox helper. */
function scriptedRuntime(c: Container): SessionRuntime {
  const ws: WorkspaceInfo = { id: 'w1', name: 'alpha', containerId: 'c1', running: true };
  return {
    run: (_id, job) => job(),
    exec: async (_target, argv) => {
      if (argv[0] === 'sh' && argv[2]?.includes('oom_kill')) return ok(`oom_kill ${c.oomKills}\nlimit ${2 * GIB}\n`);
      if (argv[0] === 'tmux' && argv[1] === 'list-windows')
        return ok(c.windows.map((name, i) => `@${i} ${name}`).join('\n'));
      // The inbox helper: `<node> nexus-inbox-send.cjs <stateDir> <sessionId>` (behind inbox-helper.ts's `sh`).
      const helper = argv.findIndex((a) => a.endsWith('nexus-inbox-send.cjs'));
      if (helper >= 0) {
        const sessionId = argv[helper + 2];
        return ok(JSON.stringify({ outcome: sessionId === 'gone' ? 'socket_missing' : 'sent' }));
      }
      throw new Error(`unexpected exec: ${argv.join(' ')}`);
    },
    info: () => ws,
    find: () => ws,
    list: () => [ws],
    idle: () => Promise.resolve(),
  };
}

describe('sessions whose agent the OOM killer took', () => {
  const dir = tempDir('nexus-memory-kills-');
  const log = createLogger({ redactor: new Redactor() });
  let db: Db;
  const make = (c: Container): SessionService =>
    new SessionService({
      db,
      events: new EventBus(new Redactor(), log),
      log,
      config: SessionsConfig.parse({}),
      runtime: scriptedRuntime(c),
      tools: { hookScript: '', inboxSendScript: '', relayScript: '' },
      hookTarget: () => null,
      maxSessionsPerWorkspace: 16,
      drivers: testDrivers(),
    });

  beforeEach(() => {
    db = openStore(join(dir.path, `${Math.random()}.db`));
    db.pragma('foreign_keys = OFF');
  });
  afterEach(() => db.close());
  afterAll(() => dir.remove());

  it('on the container’s oom event, puts the killed agent’s session in error with the memory reason, and no other', async () => {
    const c: Container = { oomKills: 1, windows: ['alive'] };
    const service = make(c);
    const alive = insertSession(db, { workspace_id: 'w1', name: 'alive', window_id: '@0', agent_state: 'working' });
    const killed = insertSession(db, { workspace_id: 'w1', name: 'killed', window_id: '@1', agent_state: 'working' });
    // Its agent said SessionEnd: it ended by itself, whatever the counter says.
    const ended = insertSession(db, { workspace_id: 'w1', name: 'ended', window_id: '@2', agent_state: 'exited' });
    const told: string[] = [];
    service.on('agentKilledForMemory', (e) => told.push(e.sessionId));
    const signals = new WorkspaceEvents(log);
    const watch = service.watchMemoryKills(signals);
    try {
      signals.emit('outOfMemory', { workspaceId: 'w1' });
      signals.emit('outOfMemory', { workspaceId: 'w1' });
      const s = await waitFor(async () => {
        const got = await service.get(killed.id);
        return got.status === 'error' ? got : null;
      }, 'the killed session to show its error');
      expect(s.reason).toMatch(/^The agent was killed for memory \(workspace limit 2 GiB\): /);
      expect(s.agentState).toBe('exited');
      expect((await service.get(alive.id)).status).toBe('running');
      expect((await service.get(ended.id)).status).toBe('running');
      expect(told).toEqual([killed.id]);
      const attention = deriveAttention({
        session: s,
        health: { agentState: s.agentState, at: s.agentStateAt, message: s.agentMessage },
        workspaceRunning: true,
      });
      expect(attention.level).toBe('needs_you');
      expect(attention.reason).toContain('The agent was killed for memory (workspace limit 2 GiB)');
    } finally {
      watch.dispose();
    }
  });

  it('answers a message to such a session with conflict "not running" and the reason, not unavailable', async () => {
    const service = make({ oomKills: 2, windows: [] });
    insertSession(db, { id: 'gone', workspace_id: 'w1', name: 'gone', window_id: '@1', agent_state: 'idle' });
    for (let i = 0; i < 2; i++)
      await expect(service.sendMessage('gone', 'hello')).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(/^Session gone is not running: The agent was killed for memory \(workspace/),
      });
    expect((await service.get('gone')).status).toBe('error');
  });

  it('calls a missing inbox socket unavailable as before when the cgroup counted no OOM kill', async () => {
    const service = make({ oomKills: 0, windows: [] });
    insertSession(db, { id: 'gone', workspace_id: 'w1', name: 'gone', window_id: '@1', agent_state: 'idle' });
    await expect(service.sendMessage('gone', 'hello')).rejects.toMatchObject({ code: 'unavailable' });
    expect((await service.get('gone')).status).toBe('running');
  });
});

describe("the container's memory cgroup as read from inside it", () => {
  it('reads cgroup v1 (this machine’s Docker 20.10): the oom_kill counter and the limit', () => {
    expect(parseContainerMemory('oom_kill 3\nlimit 2147483648\n')).toEqual({ oomKills: 3, limitBytes: 2 * GIB });
  });

  it('takes an unlimited cgroup (v2 "max", v1’s page-rounded 2^63) as no limit', () => {
    expect(parseContainerMemory('oom_kill 0\nlimit max\n')).toEqual({ oomKills: 0, limitBytes: null });
    expect(parseContainerMemory('oom_kill 0\nlimit 9223372036854771712\n')).toEqual({ oomKills: 0, limitBytes: null });
  });

  it('says nothing when there is no memory cgroup to read', () => {
    expect(parseContainerMemory('')).toBeNull();
  });
});
