import type { FaultRecord } from './faults';
import type { StageRow } from './ledger';

/** The soak's end: the sent / received / lost table, the faults, the latencies and growth, as Markdown. */

export function countBy(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

export function print(r: {
  stages: StageRow[];
  faults: FaultRecord[];
  hookToState: { p50Ms: number; p95Ms: number; n: number };
  hookToAttention: { p95Ms: number; n: number };
  growthAfterWarmup: { coreRssPercent: number; coreFdsPercent: number };
}): void {
  console.log('\n| stage | sent | received | lost | explained | note |\n|---|---:|---:|---:|---:|---|');
  for (const s of r.stages)
    console.log(`| ${s.stage} | ${s.sent} | ${s.received} | ${s.lost} | ${s.explained} | ${s.note} |`);
  console.log('\n| fault | converged | detail |\n|---|---:|---|');
  for (const f of r.faults)
    console.log(`| ${f.kind} | ${f.convergedMs < 0 ? 'no' : `${Math.round(f.convergedMs / 1000)} s`} | ${f.detail} |`);
  console.log(
    `\nhook → state on /api/events: p50 ${Math.round(r.hookToState.p50Ms)} ms, p95 ${Math.round(r.hookToState.p95Ms)} ms (n ${r.hookToState.n}); ` +
      `hook → attention p95 ${Math.round(r.hookToAttention.p95Ms)} ms (n ${r.hookToAttention.n}); ` +
      `core RSS growth after warm-up ${r.growthAfterWarmup.coreRssPercent} %, fds ${r.growthAfterWarmup.coreFdsPercent} %`,
  );
}
