import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { userAuth } from '../main/core/platform/nats/auth';
import { startRealAgentFleet } from '../test/helpers/real-agent-fleet';
import { connectRun } from '../test/helpers/run-client';
import { joinSecondEngine, startSecondEngine } from '../test/helpers/second-engine';
import { compare, measurePair, type Benchmark } from './lib';

const SESSIONS = Number(process.env.NEXUS_BENCH_REMOTE_SESSIONS ?? 6);
const CALLS = Number(process.env.NEXUS_BENCH_REMOTE_CALLS ?? 200);

/**
 * Platform traffic of a workspace on a remote engine (a second dockerd behind sshd on 127.0.0.1;
 * its workers reach Nexus through that engine's leaf nats-server, which dials core through the SSH
 * connection's remote forward) against a workspace on the local engine in the same run, alternating:
 * a real Claude Code session created → its SessionStart hook at core; one hook event published at
 * the worker's NATS URL → core's hook handler; one `memory.search` by a run at its worker's URL.
 * Needs root (test/helpers/second-engine.ts). Goal (issue #29): ≤ 1.2× on loopback SSH.
 */
const bench: Benchmark = async () => {
  const remote = await startSecondEngine({ pool: '10.203.0.0/16' });
  const fleet = await startRealAgentFleet({ nats: { leafPort: 0 } }).catch(async (e: unknown) => {
    await remote.dispose();
    throw e;
  });
  const closers: (() => Promise<void>)[] = [];
  try {
    await joinSecondEngine(fleet.call, remote, 'far');
    const here = await fleet.createWorkspace('here', { engine: 'local' });
    const there = await fleet.createWorkspace('there', { engine: 'far' });
    const platform = fleet.running.core.platform;
    // The remote engine's leaf starts with its first session; timed on its own, outside the figures.
    const leafStarted = performance.now();
    const leafUrl = await platform.workerUrl(there.id);
    const leafStartMs = Math.round(performance.now() - leafStarted);

    // Session create → SessionStart (the first hook event core applies).
    const startIn = (ws: string) => async () => {
      const s = await fleet.createSession(ws, { name: `b-${randomBytes(3).toString('hex')}`, initialMessage: 'hi' });
      await fleet.waitForSession(s.id, (x) => x.agentStateAt !== null, 240_000);
    };
    const starts = await measurePair(startIn('here'), startIn('there'), {
      iterations: SESSIONS,
      concurrency: 1,
      rounds: 2,
      warmup: 0,
    });

    // A hook event at the worker's NATS URL (the leaf for `there`) → core's hook handler.
    const waiters = new Map<string, () => void>();
    const sub = platform.onHookEvent((e) => {
      const marker = (e.event as { bench?: string } | null)?.bench;
      if (marker) waiters.get(marker)?.();
    });
    closers.push(() => Promise.resolve(sub.dispose()));
    const hookFrom = async (workspaceId: string) => {
      const c = await platform.createHookPublisher(workspaceId);
      const nc = await connect({ servers: c.natsUrl, ...userAuth(c.password ?? '') });
      closers.push(() => nc.close());
      return async () => {
        const marker = randomBytes(6).toString('hex');
        const arrived = new Promise<void>((r) => waiters.set(marker, r));
        nc.publish(c.subject, JSON.stringify({ hook_event_name: 'Notification', bench: marker }));
        await arrived;
        waiters.delete(marker);
      };
    };
    const hooks = await measurePair(await hookFrom(here.id), await hookFrom(there.id), {
      iterations: CALLS,
      concurrency: 1,
      rounds: 4,
      warmup: 20,
    });

    // memory.search by a run of each workspace's agent, at its worker URL.
    const searchFrom = async (ws: string, workspaceId: string) => {
      const agent = await fleet.call('agents.forWorkspace', { workspace: ws });
      const creds = await platform.createRun(agent.id);
      const client = await connectRun({ ...creds, natsUrl: await platform.workerUrl(workspaceId) });
      closers.push(() => client.close());
      return async () => {
        const r = await client.call('memory.search', { query: 'deploys' });
        if ('error' in r) throw new Error(r.error.message);
      };
    };
    const searches = await measurePair(await searchFrom('here', here.id), await searchFrom('there', there.id), {
      iterations: CALLS,
      concurrency: 1,
      rounds: 4,
      warmup: 20,
    });

    return [
      {
        ...compare(
          'session create → SessionStart on a remote engine (hooks through its leaf node)',
          'the same on the local engine',
          starts.subject,
          starts.base,
          '≤ 1.2×',
        ),
        extra: { leafStartMs },
      },
      {
        ...compare(
          'hook event → core from a remote engine’s worker URL (leaf → SSH forward → hub)',
          'the same at core’s server (local engine)',
          hooks.subject,
          hooks.base,
          '≤ 1.2×',
        ),
        extra: { leaf: leafUrl },
      },
      compare(
        'memory.search from a run on a remote engine (through its leaf node)',
        'the same from a run on the local engine',
        searches.subject,
        searches.base,
        '≤ 1.2×',
      ),
    ];
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await fleet.dispose().catch(() => undefined);
    await remote.dispose();
  }
};
export default bench;
