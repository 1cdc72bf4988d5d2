import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { connectRun } from '../../../test/helpers/run-client';
import { okResult } from '../../../test/helpers/platform-fixture';
import { remoteFleetForSuite } from '../../../test/helpers/suite';
import { readUntil, waitFor } from '../../../test/helpers/wait';
import { userAuth } from '../platform/nats/auth';

const jwtExpiry = (jwt: string): number =>
  (JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp: number }).exp * 1000;

// Issue 29: a remote engine's leaf node over a session's life — a revoked run dropped there, and the
// remote daemon restarted under a running session. The real pinned Claude Code CLI, the scripted model.
// Needs root: a second dockerd and an sshd on 127.0.0.1 (test/helpers/second-engine.ts), both removed
// afterwards with the workspace and the leaf container.
describe('a remote engine’s leaf node: revocations, and the remote daemon restarted', () => {
  const ws = `rl-${randomBytes(3).toString('hex')}`;
  const remote = remoteFleetForSuite({ workspace: ws });

  it('a deleted session’s run is dropped at the leaf and refused there, long before its JWT expires', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'revoked', initialMessage: 'hello' });
    await remote.fleet.waitForSession(s.id, 'idle');
    const creds = await remote.runCredsOf(s.id);
    const client = await connectRun(creds);
    expect(okResult(await client.call('skill.list', {}))).toHaveProperty('skills');

    await remote.fleet.call('sessions.delete', { session: s.id });
    // The leaf loaded core's revocations: the connection made with the run's JWT is closed…
    const closed = await Promise.race([
      client.nc.closed().then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still open after 30 s'), 30_000)),
    ]);
    expect(closed).toBe('closed');
    // …and the same JWT is refused at the leaf, though it is valid for hours yet.
    expect(jwtExpiry(creds.password) - Date.now()).toBeGreaterThan(60 * 60_000);
    await expect(connect({ servers: creds.natsUrl, ...userAuth(creds.password), reconnect: false })).rejects.toThrow(
      /authoriz|revoked/i,
    );
    // Another run on the engine is not touched.
    const other = await remote.fleet.createSession(ws, { name: 'unaffected', initialMessage: 'hello again' });
    await remote.fleet.waitForSession(other.id, 'idle');
    const still = await connectRun(await remote.runCredsOf(other.id));
    expect(okResult(await still.call('skill.list', {}))).toHaveProperty('skills');
    await still.close();
  }, 600_000);

  /** The agent states core published for a session since event `from` (each one a hook event applied). */
  const statesSince = (session: string, from: number): string[] =>
    remote.fleet
      .eventsText()
      .split('\n')
      .filter(Boolean)
      .slice(from)
      .map((l) => JSON.parse(l) as { name: string; payload: { session?: { id: string; agentState: string } } })
      .filter((e) => e.name === 'sessions.changed' && e.payload.session?.id === session)
      .map((e) => e.payload.session?.agentState ?? '');

  /** The remote daemon restarts under the session; the workspace reconciles as stopped and is started again. */
  const restartUnder = async (session: string, whenBack?: () => Promise<void>) => {
    await remote.engine.restartDaemon();
    await readUntil(
      () => remote.fleet.call('workspaces.get', { workspace: ws }),
      (w) => w.status === 'stopped',
      120_000,
    );
    await whenBack?.();
    await waitFor(
      () => remote.fleet.call('workspaces.start', { workspace: ws }).catch(() => null),
      'the workspace started again',
      120_000,
    );
    // Core relaunches the session whose window went with the container (conversation resumed).
    await readUntil(
      () => remote.fleet.call('sessions.get', { session }),
      (x) => x.agentMessage === 'Relaunched after a restart (conversation resumed)' || x.status === 'error',
      120_000,
    );
  };

  /** What a timed-out wait could not see (CI keeps no more): the session, its pane and files, its events, core's log. */
  const diagnosis = async (session: string): Promise<string> => {
    const row = await remote.fleet.call('sessions.get', { session }).catch((e: unknown) => String(e));
    const pane = await remote.fleet.pane(session).then(
      (text) => text.split('\n').filter(Boolean).slice(-15).join('\n'),
      (e: unknown) => String(e),
    );
    const dir = await remote
      .sh(
        `ls -la /tmp/nexus-sessions/${session} /tmp/cc-socks* /home/*/.claude/projects/*/ 2>&1; ` +
          `tmux list-windows -a -F '#{window_id} #{window_name} dead=#{pane_dead} pid=#{pane_pid}' 2>&1; ` +
          `ps -eo pid,ppid,etime,args | grep -E '[c]laude|[t]mux' | cut -c1-200`,
      )
      .then(
        (r) => r.stdout + r.stderr,
        (e: unknown) => String(e),
      );
    const changes = remote.fleet
      .eventsText()
      .split('\n')
      .filter((l) => l.includes(session) || l.includes('"workspaces.changed"'))
      .map((l) => {
        const e = JSON.parse(l) as { name: string; payload: Record<string, Record<string, unknown> | undefined> };
        const x = e.payload.session ?? e.payload.workspace ?? {};
        return [e.name, x.status, x.agentState, x.agentMessage, x.updatedAt].join(' ');
      })
      .slice(-25)
      .join('\n');
    const log = remote.fleet
      .logText()
      .split('\n')
      .filter((l) => l.includes(session) || /converge|relaunch|leaf|tools|agent did not|"level":"(warn|error)"/.test(l))
      .slice(-40)
      .join('\n');
    return [JSON.stringify(row), pane, dir, changes, log].join('\n--\n');
  };

  /** A message reaches the relaunched agent, and the hooks of its turn reach core through the leaf. */
  const messageAndHooks = async (session: string) => {
    const before = remote.fleet.turnsOf(session).length;
    const from = remote.fleet.eventsText().split('\n').filter(Boolean).length;
    const text = `after the daemon restart ${randomBytes(3).toString('hex')}`;
    await remote.fleet.sendWhenAnnounced(session, text).catch(async (e: unknown) => {
      throw new Error(`${(e as Error).message}\n${await diagnosis(session)}`);
    });
    await waitFor(
      () =>
        remote.fleet
          .turnsOf(session)
          .slice(before)
          .find((t) => JSON.stringify(t.body.messages).includes(text)),
      'the message in a model request after the restart',
      180_000,
    );
    // That turn's hooks came back through the leaf: working (UserPromptSubmit), then idle (Stop).
    await waitFor(
      () =>
        statesSince(session, from)
          .join(' ')
          .match(/working.* idle/),
      'the turn’s hook events applied after the restart',
      120_000,
    );
    expect((await remote.hookTarget()).url).toMatch(/^nats:\/\/10\.201\./);
  };

  it('the remote daemon restarted mid-session: the workspace reconciles, its session is relaunched, and a message and its hooks arrive', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'survivor', initialMessage: 'before the daemon restart' });
    await remote.fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && x.agentMessage === null);
    const [leaf] = await remote.leaves();
    await restartUnder(s.id);
    // The leaf came back with the daemon (its restart policy) and carries the relaunched session's traffic.
    expect((await remote.leaves()).map((c) => [c.Id, c.State])).toEqual([[leaf?.Id, 'running']]);
    await messageAndHooks(s.id);
    const client = await connectRun(await remote.runCredsOf(s.id));
    expect(okResult(await client.call('skill.list', {}))).toHaveProperty('skills');
    await client.close();
  }, 900_000);

  it('a leaf that did not come back with the daemon is started anew for the relaunched session', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'again', initialMessage: 'before the second restart' });
    await remote.fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && x.agentMessage === null);
    const [leaf] = await remote.leaves();
    await restartUnder(s.id, async () => {
      await remote.engine.docker.getContainer(leaf?.Id ?? '').remove({ force: true });
    });
    await messageAndHooks(s.id);
    const now = await remote.leaves();
    expect(now.map((c) => c.Labels['nexus.leaf.engine'])).toEqual([remote.engineId]);
    expect(now[0]?.Id).not.toBe(leaf?.Id);
  }, 900_000);

  it('a leaf removed under a running session is made again within seconds, no session started: a message and its hooks arrive', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'orphaned', initialMessage: 'before the leaf goes' });
    await remote.fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && x.agentMessage === null);
    const [leaf] = await remote.leaves();
    await remote.engine.docker.getContainer(leaf?.Id ?? '').remove({ force: true });
    // Core's look at the leaf (every 10 s while a workspace of the engine runs) makes it again.
    const back = await readUntil(
      () => remote.leaves(),
      (ls) => ls.some((c) => c.Id !== leaf?.Id && c.State === 'running'),
      60_000,
    );
    expect(back.map((c) => c.Labels['nexus.leaf.engine'])).toEqual([remote.engineId]);
    await messageAndHooks(s.id);
  }, 600_000);
});
