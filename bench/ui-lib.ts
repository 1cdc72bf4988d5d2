/** Kit for the Chromium benches (bench/ui-*.bench.ts): main-thread task time over CDP, samples, settling. */
import os from 'node:os';
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { compare, percentiles, type Figure, type Measurement } from './lib';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

/** A wait until none of the page's API calls is in flight (the event stream aside), then a frame and 50 ms. */
export function inFlight(page: Page, counts: (url: string) => boolean = () => true): () => Promise<void> {
  let open = 0;
  const rpc = (r: { url(): string }): boolean => r.url().includes('/api/rpc/') && counts(r.url());
  page.on('request', (r) => void (rpc(r) && open++));
  page.on('requestfinished', (r) => void (rpc(r) && open--));
  page.on('requestfailed', (r) => void (rpc(r) && open--));
  return async () => {
    while (open > 0) await new Promise((r) => setTimeout(r, 10));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  };
}

export const round = (x: number): number => Math.round(x * 100) / 100;

/** One step's main-thread work: task time (wall clock, grows when the core is shared) and CPU time. */
export interface Work {
  taskMs: number;
  cpuMs: number;
}

/** Main-thread work of `step`, up to the next frame after it (so style, layout and paint are in). */
export async function taskTime(cdp: CDPSession, page: Page, step: () => Promise<void>): Promise<Work> {
  const before = await metric(cdp);
  await step();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const after = await metric(cdp);
  return { taskMs: after.taskMs - before.taskMs, cpuMs: after.cpuMs - before.cpuMs };
}

/** Chromium's TaskDuration and ThreadTime (the renderer main thread's CPU time), in ms. */
async function metric(cdp: CDPSession): Promise<Work> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const value = (name: string): number => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
  return { taskMs: value('TaskDuration'), cpuMs: value('ThreadTime') };
}

/** Percentiles of the task time; the mean main-thread CPU time per step as `cpuUsPerCall`. */
export async function samples(n: number, one: (i: number) => Promise<Work>): Promise<Measurement> {
  const ms: number[] = [];
  let cpuMs = 0;
  for (let i = 0; i < n; i++) {
    const work = await one(i);
    ms.push(work.taskMs);
    cpuMs += work.cpuMs;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    ...percentiles(ms),
    perSecond: 0,
    cpuUsPerCall: (cpuMs / Math.max(1, n)) * 1000,
  };
}

/** A figure with p95 beside p50/p99: its value, its ratio to the baseline's p95, and the load average. */
export function uiFigure(
  name: string,
  baseline: string,
  subject: Measurement,
  base: Measurement,
  goal?: string,
): Figure {
  return {
    ...compare(name, baseline, subject, base, goal),
    extra: {
      p95Ms: round(subject.p95Ms),
      ratioP95: round(subject.p95Ms / base.p95Ms),
      baseP95Ms: round(base.p95Ms),
      loadAverage: round(os.loadavg()[0] ?? 0),
    },
  };
}
