import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TERMINAL_MAX_FRAME, TerminalClose } from '../../shared/terminal';
import { sessionRig, type SessionRig } from '../../test/helpers/session-rig';
import { connectTerminal, refusedStatus, type TerminalClient } from '../../test/helpers/terminal-client';
import { terminalHost } from '../../test/helpers/terminal-host';
import { waitFor } from '../../test/helpers/wait';
import type { WorkspaceInfo, WorkspaceRuntime } from '../core/workspaces/runtime';
import type { Host } from './server';
import { insertSession } from '../../test/helpers/session-row';

// A real workspace-shaped container, tmux and the agent fixture in the session's window; a real host
// whose /api/terminal is wired to the rig's sessions. The pane's tty echoes what is typed.
let rig: SessionRig;
let ws: WorkspaceInfo;
let host: Host;
let cookie: string;
let sessionId: string;
let windowId: string;
let resizes = 0;
let served: Awaited<ReturnType<typeof terminalHost>>;

const sh = (script: string): Promise<string> => rig.sh(ws.containerId as string, script);
const viewers = async (): Promise<string[]> =>
  (await sh("tmux list-sessions -F '#{session_name}'")).split('\n').filter((n) => n.startsWith('nexus-view-'));
const capture = (): Promise<string> => sh(`tmux capture-pane -p -J -t '${windowId}'`);
const toPane = (text: string): Promise<string> =>
  sh(`printf '%s\\n' '${text}' > "$(tmux display-message -p -t '${windowId}' '#{pane_tty}')"`);
const open = async (cols = 100, rows = 30): Promise<TerminalClient> => {
  const c = await connectTerminal(host.url, sessionId, { cookie });
  c.resize(cols, rows);
  return c;
};

beforeAll(async () => {
  rig = await sessionRig();
  ws = await rig.addWorkspace('term');
  const s = await rig.service.create({ workspace: 'term', name: 'agent' });
  await rig.service.idle();
  sessionId = s.id;
  windowId = (await rig.service.liveWindow(s.id)).windowId;
  // The real runtime, counting the resizes that reach the engine.
  const counting: Pick<WorkspaceRuntime, 'exec' | 'attach'> = {
    exec: (...args) => rig.runtime.exec(...args),
    attach: async (...args) => {
      const tty = await rig.runtime.attach(...args);
      return { ...tty, resize: (size) => (resizes++, tty.resize(size)) };
    },
  };
  served = await terminalHost(rig, counting);
  host = served.host;
  cookie = served.cookie;
}, 180_000);

afterAll(async () => {
  await served?.close();
  await rig?.dispose();
});

describe('the live terminal over /api/terminal/<sessionId> (docker, tmux)', () => {
  it('sends the pane scrollback on connect, then typing reaches the pane and its echo comes back', async () => {
    await toPane('scrollback-line-1');
    await sh(`seq -f 'filler-%g' 1 60 > "$(tmux display-message -p -t '${windowId}' '#{pane_tty}')"`);
    const t = await open();
    await t.waitFor('scrollback-line-1');
    t.input('typed-by-viewer');
    await waitFor(async () => (await capture()).includes('typed-by-viewer'), 'the typed text in the pane');
    await t.waitFor('typed-by-viewer');
    await toPane('written-by-the-agent');
    await t.waitFor('written-by-the-agent');
    await t.close();
  });

  it('redacts the scrollback it sends (a pane capture), as sessions.pane does', async () => {
    const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    await toPane(`export GITHUB_TOKEN=${token}`);
    await sh(`seq -f 'filler-%g' 1 60 > "$(tmux display-message -p -t '${windowId}' '#{pane_tty}')"`);
    const t = await open();
    await t.waitFor('export GITHUB_TOKEN=[REDACTED]');
    expect(t.output()).not.toContain(token);
    await t.close();
  });

  it('serves two viewers at once; closing one detaches only it; the agent window lives on', async () => {
    const a = await open(100, 30);
    const b = await open(80, 24);
    await waitFor(async () => (await viewers()).length === 2, 'two viewer sessions');
    b.input('seen-by-both');
    await a.waitFor('seen-by-both');
    await b.waitFor('seen-by-both');
    expect((await a.close()).code).toBe(1000);
    await waitFor(async () => (await viewers()).length === 1, 'one viewer left');
    b.input(' still-typing');
    await b.waitFor('still-typing');
    await b.close();
    await waitFor(async () => (await viewers()).length === 0, 'no viewer left');
    expect(await sh(`tmux list-windows -t '=${rig.config.tmuxSession}' -F '#{window_id} #{pane_dead}'`)).toContain(
      `${windowId} 0`,
    );
    expect((await rig.service.get(sessionId)).status).toBe('running');
  });

  it('coalesces a flood of resizes: the last size wins, few reach the engine, the terminal keeps working', async () => {
    const t = await open(100, 30);
    t.input(' pre-flood');
    await t.waitFor('pre-flood');
    const before = resizes;
    for (let i = 0; i < 1000; i++) t.resize(60 + (i % 40), 20 + (i % 10));
    t.resize(91, 27);
    await waitFor(
      async () =>
        (await sh(`tmux display-message -p -t '${windowId}' '#{window_width}x#{window_height}'`)).trim() === '91x27',
      'the window at the last size',
    );
    expect(resizes - before).toBeLessThan(50);
    t.input('after-the-flood');
    await t.waitFor('after-the-flood');
    await t.close();
  });

  it('closes on an oversized frame (1009) and on messages outside the schema (1008); the window lives on', async () => {
    const big = await open();
    big.send(JSON.stringify({ type: 'input', data: 'x'.repeat(TERMINAL_MAX_FRAME) }));
    expect((await big.closed).code).toBe(TerminalClose.tooBig);
    for (const bad of [
      'not json',
      { type: 'input', data: 'x', extra: true },
      { type: 'resize', cols: 100000, rows: 5 },
      { type: 'exec', cmd: 'id' },
    ]) {
      const t = await open();
      t.send(bad);
      expect((await t.closed).code, JSON.stringify(bad)).toBe(TerminalClose.policy);
    }
    const first = await connectTerminal(host.url, sessionId, { cookie });
    first.input('before any resize');
    expect((await first.closed).code).toBe(TerminalClose.policy);
    await waitFor(async () => (await viewers()).length === 0, 'no viewer left');
    expect((await rig.service.get(sessionId)).status).toBe('running');
  });
});

describe('the terminal refuses every credential but the UI cookie, and every foreign Host, Origin and id', () => {
  const refused = (opts: Parameters<typeof refusedStatus>[2], id = sessionId) => refusedStatus(host.url, id, opts);

  it('refuses no cookie, a wrong cookie, and a Bearer token of any kind (the start token, MCP read/write/vault)', async () => {
    expect(await refused({})).toBe(401);
    expect(await refused({ cookie: 'nexus_session=forged' })).toBe(401);
    const tokens = rig.host.core.tokens.store;
    const secrets = [
      host.token,
      ...(['read', 'write', 'vault'] as const).map(
        (cls) => tokens.create(`term-${cls}`, cls, new Date(Date.now() + 86_400_000)).secret,
      ),
    ];
    for (const secret of secrets) {
      expect(await refused({ headers: { authorization: `Bearer ${secret}` } })).toBe(401);
      // Even beside a valid cookie: an Authorization header means a script, never the UI.
      expect(await refused({ cookie, headers: { authorization: `Bearer ${secret}` } })).toBe(401);
    }
  });

  it('refuses a start token (or anything) in the query string', async () => {
    const path = `/api/terminal/${sessionId}`;
    expect(await refused({ path: `${path}?token=${host.token}` })).toBe(400);
    expect(await refused({ cookie, path: `${path}?token=${host.token}` })).toBe(400);
    expect(await refused({ cookie, path: `${path}?x=1` })).toBe(400);
  });

  it('refuses a foreign or missing Origin and a foreign Host, cookie or not', async () => {
    for (const origin of ['http://evil.example.com', 'null', `http://127.0.0.1:${host.port + 1}`, 'app://nexus'])
      expect(await refused({ cookie, origin }), origin).toBe(403);
    expect(await refused({ cookie, origin: null })).toBe(403);
    expect(await refused({ cookie, headers: { host: `evil.example.com:${host.port}` } })).toBe(403);
  });

  it('refuses ids that are not a live session: bad shape, unknown, a session of a stopped workspace', async () => {
    for (const path of ['/api/terminal/not-a-uuid', `/api/terminal/${sessionId.toUpperCase()}x`, '/api/terminal/%41'])
      expect(await refused({ cookie, path }), path).toBe(400);
    for (const path of [
      '/api/terminal',
      `/api/terminal/${sessionId}/x`,
      '/api/terminal/../rpc/app.info',
      '/api/events',
    ])
      expect(await refused({ cookie, path }), path).toBe(404);
    expect(await refused({ cookie }, randomUUID())).toBe(404);
    expect(await refused({ cookie }, ws.id)).toBe(400);
    const stopped = rig.addStoppedWorkspace('stopped');
    const goneId = insertSession(rig.db, { workspace_id: stopped.id, name: 'gone' }).id;
    expect(await refused({ cookie }, goneId)).toBe(409);
  });

  it('still accepts the UI with every loopback spelling of its own Host and Origin', async () => {
    for (const name of ['127.0.0.1', 'localhost']) {
      const t = await connectTerminal(host.url.replace('127.0.0.1', name), sessionId, {
        cookie,
        origin: `http://${name}:${host.port}`,
      });
      t.resize(80, 24);
      t.input(` via-${name}`);
      await t.waitFor(`via-${name}`);
      await t.close();
    }
  });
});

describe('when the session window goes', () => {
  it('a viewer killed from outside closes with "retry"; the agent window closing ends its viewers with 4001', async () => {
    const t = await open();
    // Attached, not only opening: the viewer's tmux session exists a moment before its client is attached, and a
    // kill in that moment is an open that failed (1011), not a terminal that dropped.
    t.input(' killed-viewer-was-attached');
    await t.waitFor('killed-viewer-was-attached');
    await waitFor(async () => (await viewers()).length === 1, 'a viewer');
    await sh(`tmux kill-session -t '${(await viewers())[0]}'`);
    expect((await t.closed).code).toBe(TerminalClose.retry);
    const u = await open();
    u.input(' last-words');
    await u.waitFor('last-words');
    await sh(`tmux kill-window -t '${windowId}'`);
    expect((await u.closed).code).toBe(TerminalClose.ended);
    await waitFor(async () => (await viewers()).length === 0, 'no viewer left');
  });
});
