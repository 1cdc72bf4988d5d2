import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';

/**
 * The real pinned CLI through a whole Nexus against the scripted model: the platform tools the
 * model can reach are exactly the ones its workspace's agent record allows; a scripted
 * task.delegate shows on the Board and "Start a session on it" runs one; with NATS stopped a
 * session still starts, without platform tools, and says why.
 */
/** Every mcp__nexus__* name the model can reach in a request: in `tools`, or listed as deferred for ToolSearch. */
const reachable = (req: ModelRequest): string[] =>
  [...new Set(JSON.stringify(req.body).match(/mcp__nexus__[a-z_]+/g) ?? [])].sort();

describe('the real agent CLI: platform tools, gating and the board', () => {
  let fleet: RealAgentFleet;
  const ws = 'gate';

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  const firstTurn = (session: string) => fleet.firstTurn(session);

  it('with NATS stopped a session still starts and talks to the model, without platform tools, and says why', async () => {
    await fleet.running.core.platform.dispose();
    const s = await fleet.createSession(ws, { name: 'offline', initialMessage: 'hello without tools' });
    const turn = await firstTurn(s.id);
    expect(reachable(turn)).toEqual([]);
    const now = await fleet.call('sessions.get', { session: s.id });
    expect(now.status).toBe('running');
    expect(now.toolsReason).toMatch(/Platform tools are off/);
  }, 600_000);
});
