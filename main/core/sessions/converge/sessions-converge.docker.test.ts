import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../../shared/contract/sessions';
import { sessionRig, type SessionRig } from '../../../../test/helpers/session-rig';
import { waitFor } from '../../../../test/helpers/wait';
import { createLogger } from '../../log';
import { Redactor } from '../../redact';
import type { WorkspaceInfo } from '../../workspaces/runtime';
import { WorkspaceEvents } from '../../workspaces/workspace-events';
import { convergeOnWorkspaceStart } from './converge-on-start';
import { insertSession } from '../../../../test/helpers/session-row';

let rig: SessionRig;
let ws: WorkspaceInfo;
const byName = new Map<string, Session>();

const container = (): string => ws.containerId as string;
const launches = async (id: string) => (await rig.records(container(), id)).filter((r) => r.kind === 'launch');
const session = (name: string): Session => byName.get(name) as Session;
const killWindow = async (name: string): Promise<void> => {
  const line = (await rig.sh(container(), 'tmux list-windows -t =nexus -F "#{window_name} #{window_id}"'))
    .split('\n')
    .find((l) => l.startsWith(`${name} `));
  await rig.sh(container(), `tmux kill-window -t '${line?.split(' ')[1] ?? ''}'`);
};

beforeAll(async () => {
  rig = await sessionRig();
  ws = await rig.addWorkspace('conv');
  const created = await Promise.all(
    ['alive', 'gone', 'started', 'exited'].map((name) => rig.service.create({ workspace: 'conv', name })),
  );
  await rig.service.idle();
  for (const s of created) {
    byName.set(s.name, s);
    await waitFor(
      async () => (await rig.records(container(), s.id)).some((r) => r.kind === 'hook' && r.event === 'SessionStart'),
      `${s.name} to start`,
    );
  }
}, 180_000);

afterAll(async () => {
  await rig?.dispose();
});

describe('converge (a real workspace container; the fixture as the agent)', () => {
  it('after a host restart, relaunches nothing that is alive and resumes a session whose window is gone', async () => {
    const gone = session('gone');
    await rig.ctl(container(), gone.id, { exit: 0 });
    await waitFor(async () => (await rig.service.get(gone.id)).agentState === 'exited', 'the agent to exit');
    // Its hook says it exited before its window's shell is gone: on a busy machine the window lingers a moment, and a
    // converge then finds it alive (seen once in CI at load 12).
    await waitFor(
      async () =>
        !(await rig.sh(container(), 'tmux list-windows -t =nexus -F "#{window_name}"')).split('\n').includes('gone'),
      'its window to close',
    );
    const others = ['alive', 'started', 'exited'].map(session);
    const before = await Promise.all(others.map((s) => launches(s.id).then((l) => l.length)));
    const service = rig.restart();
    const report = await service.converge();
    expect(report.relaunched).toEqual([gone.id]);
    expect(report.alive.sort()).toEqual(others.map((s) => s.id).sort());
    expect(await Promise.all(others.map((s) => launches(s.id).then((l) => l.length)))).toEqual(before);
    const relaunch = await waitFor(async () => {
      const l = await launches(gone.id);
      return l.length === 2 ? l[1] : null;
    }, 'the relaunch');
    const agentSessionId = (
      rig.db.prepare('SELECT agent_session_id AS a FROM sessions WHERE id = ?').get(gone.id) as { a: string }
    ).a;
    expect((relaunch as { argv: string[] }).argv).toContain(`--resume=${agentSessionId}`);
    expect((relaunch as { parsed: { prompt: null } }).parsed.prompt).toBeNull();
    expect((await service.converge()).relaunched).toEqual([]);
  });

  it('leaves every session as it is when tmux cannot be asked (an error is not "no windows")', async () => {
    const all = ['alive', 'gone', 'started', 'exited'].map(session);
    const before = await Promise.all(all.map((s) => launches(s.id).then((l) => l.length)));
    const runs = () =>
      all.map((s) => (rig.db.prepare('SELECT run_id AS r FROM sessions WHERE id = ?').get(s.id) as { r: string }).r);
    const runsBefore = runs();
    const dir = (await rig.sh(container(), 'dirname "$(tmux display -p "#{socket_path}")"')).trim();
    // tmux refuses a socket directory others may write ("unsafe permissions"): listing fails, the agents live on.
    await rig.sh(container(), `chmod 777 '${dir}'`);
    try {
      const report = await rig.restart().converge(ws.id);
      expect(report).toMatchObject({ alive: [], relaunched: [], exited: [] });
    } finally {
      await rig.sh(container(), `chmod 700 '${dir}'`);
    }
    expect(await Promise.all(all.map((s) => launches(s.id).then((l) => l.length)))).toEqual(before);
    // Nothing was started again, not even a run (a relaunch gives each a new one before it reaches tmux).
    expect(runs()).toEqual(runsBefore);
    expect(await Promise.all(all.map((s) => rig.service.get(s.id).then((x) => x.status)))).toEqual(
      all.map(() => 'running'),
    );
  });

  it('converges when a workspace starts: a session whose window is gone is resumed, once', async () => {
    const s = session('started');
    const log = createLogger({ redactor: new Redactor() });
    const signals = new WorkspaceEvents(log);
    const sub = convergeOnWorkspaceStart(signals, rig.service, log);
    try {
      await killWindow('started');
      const before = (await launches(s.id)).length;
      signals.emit('started', { workspaceId: ws.id });
      await waitFor(async () => (await launches(s.id)).length === before + 1, 'the relaunch');
      await rig.service.idle();
      // A second converge finds the relaunched window alive and launches nothing.
      expect((await rig.service.converge(ws.id)).relaunched).toEqual([]);
      expect((await launches(s.id)).length).toBe(before + 1);
    } finally {
      sub.dispose();
    }
  });

  it('marks a session exited when its window and worktree are both gone', async () => {
    const s = session('exited');
    await killWindow('exited');
    await rig.sh(container(), `git -C /workspace worktree remove --force ${rig.config.worktreesDir}/exited`);
    const report = await rig.service.converge(ws.id);
    expect(report.exited).toEqual([s.id]);
    expect((await rig.service.get(s.id)).status).toBe('exited');
  });

  it('marks a create interrupted by a restart as error', async () => {
    insertSession(rig.db, {
      id: 'interrupted-1',
      workspace_id: ws.id,
      name: 'half',
      status: 'creating',
      agent_state: 'starting',
    });
    const report = await rig.restart().converge(ws.id);
    expect(report.interrupted).toEqual(['interrupted-1']);
    expect(await rig.service.get('interrupted-1')).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/interrupted by a restart/),
    });
  });
});
