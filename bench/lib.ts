/** Small benchmark kit: latency percentiles and throughput at a given concurrency, compared to a baseline measured in the same run. */
export interface Measurement {
  n: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  perSecond: number;
  /** Process CPU time (user + system, every thread) per call: steadier than wall time on a shared machine. */
  cpuUsPerCall?: number;
}

export interface Figure {
  name: string;
  /** What the figure is compared to, measured in the same run. */
  baseline: string;
  subject: Measurement;
  base: Measurement;
  /** subject / baseline for latency (p50), baseline-relative throughput too. */
  ratioP50: number;
  ratioP99: number;
  ratioThroughput: number;
  target?: string;
  extra?: Record<string, number | string>;
}

/** n and the p50 / p95 / p99 of latency samples in ms (sorts a copy). */
export function percentiles(samples: readonly number[]): Pick<Measurement, 'n' | 'p50Ms' | 'p95Ms' | 'p99Ms'> {
  const sorted = [...samples].sort((a, b) => a - b);
  const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return { n: sorted.length, p50Ms: pct(50), p95Ms: pct(95), p99Ms: pct(99) };
}

export async function measure(
  fn: () => Promise<unknown>,
  opts: { iterations: number; concurrency: number; warmup?: number },
): Promise<Measurement> {
  for (let i = 0; i < (opts.warmup ?? Math.min(200, opts.iterations / 10)); i++) await fn();
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = async (): Promise<void> => {
    while (next < opts.iterations) {
      next++;
      const t = performance.now();
      await fn();
      samples.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    ...percentiles(samples),
    perSecond: (samples.length / elapsed) * 1000,
    cpuUsPerCall: (used.user + used.system) / Math.max(1, samples.length),
  };
}

/**
 * A subject and its baseline measured in alternating rounds (base first in even rounds, subject
 * first in odd ones), so both see the same load on a shared machine: a baseline measured once
 * before the subject compares two different moments of the machine, not two code paths.
 */
export async function measurePair(
  base: () => Promise<unknown>,
  subject: () => Promise<unknown>,
  opts: { iterations: number; concurrency: number; rounds: number; warmup?: number },
): Promise<{ base: Measurement; subject: Measurement }> {
  const warmup = opts.warmup ?? Math.min(200, opts.iterations / 10);
  for (let i = 0; i < warmup; i++) await base();
  for (let i = 0; i < warmup; i++) await subject();
  const acc = () => ({ samples: [] as number[], elapsed: 0, cpu: 0 });
  const totals = { base: acc(), subject: acc() };
  const per = Math.ceil(opts.iterations / opts.rounds);
  const run = async (fn: () => Promise<unknown>, into: ReturnType<typeof acc>): Promise<void> => {
    let next = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    const worker = async (): Promise<void> => {
      while (next < per) {
        next++;
        const t = performance.now();
        await fn();
        into.samples.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    into.elapsed += performance.now() - started;
    const used = process.cpuUsage(cpu);
    into.cpu += used.user + used.system;
  };
  for (let r = 0; r < opts.rounds; r++) {
    if (r % 2 === 0) {
      await run(base, totals.base);
      await run(subject, totals.subject);
    } else {
      await run(subject, totals.subject);
      await run(base, totals.base);
    }
  }
  const of = (t: ReturnType<typeof acc>): Measurement => ({
    ...percentiles(t.samples),
    perSecond: (t.samples.length / t.elapsed) * 1000,
    cpuUsPerCall: t.cpu / Math.max(1, t.samples.length),
  });
  return { base: of(totals.base), subject: of(totals.subject) };
}

export function compare(
  name: string,
  baseline: string,
  subject: Measurement,
  base: Measurement,
  target?: string,
): Figure {
  return {
    name,
    baseline,
    subject,
    base,
    ratioP50: subject.p50Ms / base.p50Ms,
    ratioP99: subject.p99Ms / base.p99Ms,
    ratioThroughput: subject.perSecond / base.perSecond,
    ...(target ? { target } : {}),
  };
}

export function print(f: Figure): void {
  const ms = (x: number): string => `${x.toFixed(3)} ms`;
  console.log(
    `${f.name}: p50 ${ms(f.subject.p50Ms)} (${f.ratioP50.toFixed(2)}× ${f.baseline}), p99 ${ms(f.subject.p99Ms)} (${f.ratioP99.toFixed(2)}×), ` +
      (f.base.perSecond > 0
        ? `${Math.round(f.subject.perSecond)}/s (${f.ratioThroughput.toFixed(2)}× of ${Math.round(f.base.perSecond)}/s)`
        : 'latency only') +
      (f.subject.cpuUsPerCall !== undefined && f.base.cpuUsPerCall
        ? `, cpu ${Math.round(f.subject.cpuUsPerCall)} µs/call (${(f.subject.cpuUsPerCall / f.base.cpuUsPerCall).toFixed(2)}×)`
        : '') +
      (f.extra ? ` ${JSON.stringify(f.extra)}` : '') +
      (f.target ? ` — target: ${f.target}` : ''),
  );
}

export type Benchmark = () => Promise<Figure[]>;
