import type { Session } from '../shared/contract/sessions';
import { sessionRig } from '../test/helpers/session-rig';
import { compare, measure, type Benchmark } from './lib';

/**
 * Sessions in a real container (docker, git, tmux, NATS; the agent fixture as the agent):
 *  - create -> running, one at a time and 10 at once in one workspace (serial queue), against a bare
 *    `docker exec true` in the same container (the unit cost every step pays);
 *  - hook event -> sessions.changed on the core event bus (what /api/events streams), measured from
 *    the hook's own publish time (through core.platform's managed nats-server), against the same exec baseline.
 * Targets: single <= 1.5 s, 10 concurrent all done <= 5 s, event <= 250 ms p95.
 */
const bench: Benchmark = async () => {
  const rig = await sessionRig();
  try {
    const ws = await rig.addWorkspace('bench');
    const containerId = ws.containerId as string;
    let n = 0;
    const createOne = (): Promise<Session> =>
      new Promise((resolve, reject) => {
        rig.service
          .create({ workspace: 'bench', name: `b${n++}`, initialMessage: 'benchmark this' }, (s) =>
            s.status === 'running' ? resolve(s) : reject(new Error(s.reason ?? s.status)),
          )
          .catch(reject);
      });
    const execBase = await measure(() => rig.exec(containerId, ['true']), {
      iterations: 20,
      concurrency: 1,
      warmup: 2,
    });
    const single = await measure(createOne, { iterations: 8, concurrency: 1, warmup: 1 });
    const started = performance.now();
    const burst = await measure(createOne, { iterations: 10, concurrency: 10, warmup: 0 });
    const allDone = performance.now() - started;

    // Hook latency: fire Stop/UserPromptSubmit alternately in one session and time publish -> event.
    const target = (await rig.service.list('bench'))[0] as Session;
    const latencies: number[] = [];
    const sub = rig.events.subscribe((e) => {
      const p = e.payload as { session?: Session | null };
      if (e.name === 'sessions.changed' && p.session?.id === target.id && p.session.agentStateAt)
        latencies.push(Date.now() - Date.parse(p.session.agentStateAt));
    });
    let i = 0;
    const fire = async (): Promise<void> => {
      const before = latencies.length;
      await rig.ctl(containerId, target.id, { fire: i++ % 2 ? 'Stop' : 'UserPromptSubmit', fields: { prompt: 'x' } });
      const end = Date.now() + 5000;
      while (latencies.length === before && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    };
    await measure(fire, { iterations: 20, concurrency: 1, warmup: 2 });
    sub.dispose();
    latencies.sort((a, b) => a - b);
    const pct = (p: number): number =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
    const hookSubject = { n: latencies.length, p50Ms: pct(50), p95Ms: pct(95), p99Ms: pct(99), perSecond: 0 };

    return [
      compare('session create -> running (single)', 'docker exec true', single, execBase, 'p50 <= 1500 ms'),
      {
        ...compare(
          'session create -> running (10 concurrent, one workspace)',
          'docker exec true',
          burst,
          execBase,
          'all done <= 5000 ms',
        ),
        extra: { allDoneMs: Math.round(allDone) },
      },
      {
        ...compare('hook event -> sessions.changed', 'docker exec true', hookSubject, execBase, 'p95 <= 250 ms'),
        extra: { p95Ms: hookSubject.p95Ms },
      },
    ];
  } finally {
    await rig.dispose();
  }
};
export default bench;
