/**
 * The UI at fleet size: Overview and Sessions with 500 sessions in headless Chromium, served by a
 * real `serve` host over a seeded store. Each figure is main-thread task time (Chromium's
 * Performance.getMetrics TaskDuration, read over CDP) for one render or one pushed event, beside
 * the same step on an empty fleet measured in the same run (the API answers for the baseline page
 * are replaced by empty ones). Targets (printed, never asserted): render ≤ 100 ms, update ≤ 16 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import type { FleetAttention, SessionAttention } from '../shared/attention';
import type { Session } from '../shared/contract/sessions';
import { operatorContext } from '../main/core/handlers';
import { serve } from '../main/serve';
import { seedFleet } from './fleet';
import { compare, type Benchmark, type Measurement } from './lib';

const RENDERS = 12;
const EVENTS = 30;
type Running = Awaited<ReturnType<typeof serve>>;

const bench: Benchmark = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-bench-ui-'));
  const running = await serve({ dataDir, appRoot: process.cwd(), port: 0, config: { version: 'bench' } });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const seeded = await seedFleet(running);
    const { sessions } = await running.core.dispatcher.call('sessions.list', {}, operatorContext('internal'));
    // A roll-up where a fifth of the fleet needs the operator, so the Overview has a long list to show.
    const fleet = syntheticFleet(sessions);
    const base = await measurePages(browser, running, { sessions: [], fleet: syntheticFleet([]) });
    const full = await measurePages(browser, running, { sessions, fleet });
    const target = { render: 'render ≤ 100 ms main-thread work', update: 'update ≤ 16 ms main-thread work' };
    const label = `${seeded}, ${fleet.needsYou.length} needing you`;
    return [
      compare(
        `ui Overview render (${label})`,
        'same page, empty fleet',
        full.overviewRender,
        base.overviewRender,
        target.render,
      ),
      compare(
        `ui Overview update on attention.changed (${label})`,
        'same page, empty fleet',
        full.overviewEvent,
        base.overviewEvent,
        target.update,
      ),
      compare(
        `ui Sessions render (${label})`,
        'same page, empty fleet',
        full.sessionsRender,
        base.sessionsRender,
        target.render,
      ),
      compare(
        `ui Sessions update on sessions.changed (${label})`,
        'same page, empty fleet',
        full.sessionsEvent,
        base.sessionsEvent,
        target.update,
      ),
    ];
  } finally {
    await browser.close();
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
export default bench;

function syntheticFleet(sessions: Session[]): FleetAttention {
  const items: SessionAttention[] = sessions.map((s, i) => ({
    sessionId: s.id,
    sessionName: s.name,
    workspaceName: s.workspaceName,
    level: i % 5 === 0 ? 'needs_you' : 'working',
    reason: i % 5 === 0 ? 'Permission needed: Bash' : 'Working',
    since: new Date(Date.now() - i * 1000).toISOString(),
  }));
  const needsYou = items.filter((i) => i.level === 'needs_you');
  return {
    counts: { needs_you: needsYou.length, working: items.length - needsYou.length, idle: 0, offline: 0 },
    needsYou,
    sessions: items,
    review: { memories: 0, skills: 0 },
  };
}

/**
 * Opens the app, and for each page measures rendering it from the query cache (navigating to it
 * from Settings) and applying one pushed event. The page's data is pinned by answering
 * `sessions.list` / `attention.get` in the browser, so the baseline can use the same server.
 */
async function measurePages(browser: Browser, running: Running, data: { sessions: Session[]; fleet: FleetAttention }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.route('**/api/rpc/sessions.list', (r) => r.fulfill({ json: { result: { sessions: data.sessions } } }));
  await page.route('**/api/rpc/attention.get', (r) => r.fulfill({ json: { result: data.fleet } }));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  try {
    await page.goto(running.host.loginUrl);
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Overview');
    const rows = data.sessions.length;
    const needing = data.fleet.needsYou.length;
    // Visit both pages once so their data is in the query cache.
    await show(page, 'sessions', '[data-session]', rows);
    await show(page, 'overview', '[data-testid="needs-you-list"] li', needing);

    const overviewRender = await samples(RENDERS, async () => {
      await show(page, 'settings', 'h1', 1);
      return taskTime(cdp, page, () => show(page, 'overview', '[data-testid="needs-you-list"] li', needing));
    });
    let n = 0;
    const overviewEvent = await samples(EVENTS, async () => {
      const reason = `Waiting for your input: question ${++n}`;
      const next = structuredClone(data.fleet);
      if (next.needsYou[0]) next.needsYou[0].reason = reason;
      else next.review.memories = n;
      const expected = next.needsYou[0] ? reason : `${n} memories`;
      return taskTime(cdp, page, async () => {
        running.core.events.emit('attention.changed', next);
        await page.waitForFunction((t) => document.body.textContent?.includes(t), expected, { polling: 'raf' });
      });
    });

    const sessionsRender = await samples(RENDERS, async () => {
      await show(page, 'settings', 'h1', 1);
      return taskTime(cdp, page, () => show(page, 'sessions', '[data-session]', rows));
    });
    const target = data.sessions[Math.floor(data.sessions.length / 2)];
    const sessionsEvent = await samples(EVENTS, async () => {
      const message = `step ${++n} done`;
      const session: Session = target ? { ...target, agentMessage: message } : syntheticSession(message);
      return taskTime(cdp, page, async () => {
        running.core.events.emit('sessions.changed', { session });
        await page.waitForFunction((t) => document.body.textContent?.includes(t), message, { polling: 'raf' });
      });
    });
    return { overviewRender, overviewEvent, sessionsRender, sessionsEvent };
  } finally {
    await context.close();
  }
}

/** For the empty fleet: one session that the event adds (the smallest update the page can make). */
function syntheticSession(message: string): Session {
  const now = new Date().toISOString();
  return {
    id: 'bench-solo',
    workspaceId: 'bench-ws-solo',
    workspaceName: 'solo',
    name: 'solo',
    branch: 'nexus/solo',
    status: 'running',
    reason: null,
    taskId: null,
    toolsReason: null,
    agentState: 'working',
    agentStateAt: now,
    agentMessage: message,
    createdAt: now,
    updatedAt: now,
  };
}

/** Navigates to a page and waits until its title and `count` items matching `selector` are in the DOM. */
async function show(page: Page, route: string, selector: string, count: number): Promise<void> {
  const title = route[0]?.toUpperCase() + route.slice(1);
  await page.evaluate((r) => (window.location.hash = `#/${r}`), route);
  await page.waitForFunction(
    ({ title, selector, count }) =>
      document.querySelector('h1')?.textContent === title && document.querySelectorAll(selector).length >= count,
    { title, selector, count },
    { polling: 'raf' },
  );
}

/** Main-thread task time of `step`, up to the next frame after it (so style, layout and paint are in). */
async function taskTime(cdp: CDPSession, page: Page, step: () => Promise<void>): Promise<number> {
  const before = await metric(cdp);
  await step();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  return (await metric(cdp)) - before;
}

async function metric(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000;
}

async function samples(n: number, one: () => Promise<number>): Promise<Measurement> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    ms.push(await one());
    await new Promise((r) => setTimeout(r, 50));
  }
  ms.sort((a, b) => a - b);
  const pct = (p: number): number => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))] ?? 0;
  return { n: ms.length, p50Ms: pct(50), p95Ms: pct(95), p99Ms: pct(99), perSecond: 0 };
}
