import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realDocker } from '../../../test/helpers/docker';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../test/helpers/wait';

/**
 * A workspace container restarted outside Nexus (`docker restart`, the engine's restart policy, a
 * crash): found by `npm run soak` — its sessions were relaunched but sat at "Not logged in", because
 * the agent's credential lives on the container's /run/nexus tmpfs and only create and start put it
 * there. The real pinned CLI against the model stand-in.
 */
describe('a workspace container restarted outside Nexus (real CLI, docker)', () => {
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
    expect((await fleet.sh(ws, 'test -s /run/nexus/agent-api-key && echo present')).stdout.trim()).toBe('present');

    // The state can read "idle" from before the restart until the relaunched agent's SessionStart arrives; until
    // then the inbox is refused as not announced (unavailable): send once it is.
    await waitFor(
      () =>
        fleet
          .call('sessions.sendMessage', { session: s.id, text: 'after the restart' })
          .then(() => true)
          .catch((e: unknown) =>
            e instanceof Error && /not announced its inbox/.test(e.message) ? false : Promise.reject(e),
          ),
      'the relaunched agent to announce its inbox and take the message',
      120_000,
    );
    const turn = await waitFor(
      () => fleet.turnsOf(s.id).slice(turnsBefore)[0],
      'a model request from the relaunched session',
      180_000,
    );
    expect(turn.auth).toBe('x-api-key');
    expect(fleet.env.api.sawCredential(fleet.env.canary)).toBe(true);
  }, 600_000);
});
