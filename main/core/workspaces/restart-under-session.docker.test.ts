import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realDocker } from '../../../test/helpers/docker';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../test/helpers/wait';

/**
 * A workspace container restarted or stopped under a running session. The real pinned CLI against the
 * model stand-in.
 * - Restarted outside Nexus (`docker restart`, the engine's restart policy, a crash): found by `npm run
 *   soak` — its sessions were relaunched but sat at "Not logged in", because the agent's credential
 *   lives on the container's /run/nexus tmpfs and only create and start put it there.
 * - Stopped right after a turn, as a daemon shutting down stops it: found by remote-leaf.docker.test.ts
 *   in CI. PID 1 exited at once on SIGTERM, so the agent was killed mid-write: its conversation was not
 *   on disk (a 271-byte transcript), `--resume` found none, the relaunched CLI exited at once and the
 *   session sat without a window. Now PID 1 lets each agent end first (nexus-entrypoint).
 */
describe('a workspace container restarted or stopped under a running session (real CLI, docker)', () => {
  let fleet: RealAgentFleet;
  const ws = `restart-out-${Date.now().toString(36)}`;

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  it("relaunches its sessions with the agent's credential: the next message reaches the model", async () => {
    const s = await fleet.createSession(ws, { name: 'survivor', initialMessage: 'before the restart' });
    await fleet.firstTurn(s.id);
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && x.agentMessage === null);
    const { containerId } = await fleet.call('workspaces.get', { workspace: ws });
    const turnsBefore = fleet.turnsOf(s.id).length;

    await realDocker()
      .getContainer(containerId ?? '')
      .restart({ t: 5 });
    // Core sees the container come back and relaunches the session (conversation resumed).
    await readUntil(
      () => fleet.call('sessions.get', { session: s.id }),
      (x) => x.agentMessage === 'Relaunched after a restart (conversation resumed)' || x.status === 'error',
      120_000,
    );
    await fleet.waitForSession(s.id, (x) => x.agentState !== 'starting');
    // The relaunch's run wrote the session's new gateway credential (0600); no key is in the container.
    expect((await fleet.sh(ws, `stat -c %a /tmp/nexus-sessions/${s.id}/gateway-key`)).stdout.trim()).toBe('600');
    expect((await fleet.sh(ws, 'ls /run/nexus')).stdout.trim()).toBe('');

    // The state can read "idle" from before the restart until the relaunched agent's SessionStart arrives; until
    // then the inbox is refused as not announced (unavailable): send once it is.
    await fleet.sendWhenAnnounced(s.id, 'after the restart', 120_000);
    const turn = await waitFor(
      () => fleet.turnsOf(s.id).slice(turnsBefore)[0],
      'a model request from the relaunched session',
      180_000,
    );
    expect(turn.auth).toBe('x-api-key');
    expect(fleet.env.api.sawCredential(fleet.env.canary)).toBe(true);
  }, 600_000);

  it('lets the agent end before the container stops (its SessionEnd arrives), and its conversation resumes', async () => {
    const s = await fleet.createSession(ws, { name: 'stopped', initialMessage: 'before the stop' });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && x.agentMessage === null);

    // At once after the turn. A SIGKILLed agent runs no hook: this SessionEnd comes only from an agent let end.
    await fleet.call('workspaces.stop', { workspace: ws });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'exited' && x.agentMessage === 'Session ended (other)');

    const before = fleet.turnsOf(s.id).length;
    await fleet.call('workspaces.start', { workspace: ws });
    await readUntil(
      () => fleet.call('sessions.get', { session: s.id }),
      (x) => x.agentMessage === 'Relaunched after a restart (conversation resumed)' || x.status === 'error',
      120_000,
    );
    await fleet.sendWhenAnnounced(s.id, 'after the stop', 120_000);
    const turn = await waitFor(
      () =>
        fleet
          .turnsOf(s.id)
          .slice(before)
          .find((t) => JSON.stringify(t.body.messages).includes('after the stop')),
      'the message in a model request of the relaunched agent',
      180_000,
    );
    // The same conversation: the first turn is there, sent once.
    expect(JSON.stringify(turn.body.messages).split('before the stop')).toHaveLength(2);
  }, 600_000);
});
