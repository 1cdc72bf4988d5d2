import type { FaultRecord } from './faults';
import type { InternalAnswers } from './internal-answers';
import type { StageRow } from './ledger';

/** The soak's end: the sent / received / lost table, the faults, the latencies and growth, as Markdown. */

export function countBy(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

export function print(r: {
  stages: StageRow[];
  /** With more than one engine: each engine's share of the stages that belong to a workspace. */
  stagesByEngine?: Record<string, StageRow[]>;
  engines?: { engine: string; workspaces: string[]; sessions: number; modelRequests: number; toolCalls: number }[];
  faults: FaultRecord[];
  hookToState: { p50Ms: number; p95Ms: number; n: number };
  hookToAttention: { p95Ms: number; n: number };
  growthAfterWarmup: { coreRssPercent: number; coreFdsPercent: number };
  internalAnswers: InternalAnswers;
}): void {
  console.log('\n| stage | sent | received | lost | explained | note |\n|---|---:|---:|---:|---:|---|');
  for (const s of r.stages)
    console.log(`| ${s.stage} | ${s.sent} | ${s.received} | ${s.lost} | ${s.explained} | ${s.note} |`);
  const engines = r.engines ?? [];
  if (engines.length > 1) {
    console.log('\n| engine | workspaces | sessions | model requests | tool calls |\n|---|---|---:|---:|---:|');
    for (const e of engines)
      console.log(`| ${e.engine} | ${e.workspaces.join(', ')} | ${e.sessions} | ${e.modelRequests} | ${e.toolCalls} |`);
    console.log('\n| stage | engine | sent | received | lost | explained |\n|---|---|---:|---:|---:|---:|');
    const names = Object.keys(r.stagesByEngine ?? {});
    const first = r.stagesByEngine?.[names[0] ?? ''] ?? [];
    for (const [i, row] of first.entries())
      for (const name of names) {
        const s = r.stagesByEngine![name]![i]!;
        console.log(`| ${row.stage} | ${name} | ${s.sent} | ${s.received} | ${s.lost} | ${s.explained} |`);
      }
  }
  // Any answer with error code internal fails the run (internal-answers.ts); none is a row of 0.
  const internal = r.internalAnswers;
  console.log('\n| answered internal | count | first |\n|---|---:|---|');
  if (internal.count === 0) console.log('| (nothing) | 0 | |');
  for (const [where, n] of Object.entries(internal.byWhere)) {
    const first = internal.first.find((a) => a.where === where)?.message ?? '';
    console.log(`| ${where} | ${n} | ${first.slice(0, 160).replace(/[|\n]/g, ' ')} |`);
  }
  console.log('\n| fault | engine | converged | detail |\n|---|---|---:|---|');
  for (const f of r.faults)
    console.log(
      `| ${f.kind} | ${f.engine ?? 'core'} | ${f.convergedMs < 0 ? 'no' : `${Math.round(f.convergedMs / 1000)} s`} | ${f.detail} |`,
    );
  console.log(
    `\nhook → state on /api/events: p50 ${Math.round(r.hookToState.p50Ms)} ms, p95 ${Math.round(r.hookToState.p95Ms)} ms (n ${r.hookToState.n}); ` +
      `hook → attention p95 ${Math.round(r.hookToAttention.p95Ms)} ms (n ${r.hookToAttention.n}); ` +
      `core RSS growth after warm-up ${r.growthAfterWarmup.coreRssPercent} %, fds ${r.growthAfterWarmup.coreFdsPercent} %`,
  );
}
