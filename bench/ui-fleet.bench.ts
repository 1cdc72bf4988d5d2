/**
 * The UI at fleet size: Overview and Sessions with 500 sessions in headless Chromium, served by a
 * real `serve` host over a seeded store. Each figure is main-thread task time (Chromium's
 * Performance.getMetrics TaskDuration, read over CDP) for one render or one pushed event, beside
 * the same step on an empty fleet measured in the same run (the API answers for the baseline page
 * are replaced by empty ones). A page counts as rendered when its title and the rows in view are in
 * the DOM (a long list renders the rows in view first, renderer/src/shell/progressive.tsx). Each
 * step starts once the page's own requests have settled, so a late answer to the page before it
 * is not counted. Targets (printed, never asserted): render ≤ 100 ms, update ≤ 16 ms. The machine
 * is shared: each figure carries p95, its ratio to the baseline's p95 and the load average.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import type { FleetAttention, SessionAttention } from '../shared/attention';
import type { Session } from '../shared/contract/sessions';
import { operatorContext } from '../main/core/handlers';
import { serve } from '../main/serve';
import { byWorkspace } from '../renderer/src/features/sessions/session-list';
import { seedFleet } from './fleet';
import type { Benchmark } from './lib';
import { inFlight, launchChromium, samples, taskTime, uiFigure } from './ui-lib';

// Enough samples for a p95 that is not the second-worst of a dozen.
const RENDERS = 40;
const EVENTS = 60;
type Running = Awaited<ReturnType<typeof serve>>;

const bench: Benchmark = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-bench-ui-'));
  const running = await serve({ dataDir, appRoot: process.cwd(), port: 0, config: { version: 'bench' } });
  const browser = await launchChromium();
  try {
    const seeded = await seedFleet(running);
    const { sessions } = await running.core.dispatcher.call('sessions.list', {}, operatorContext('internal'));
    // A roll-up where a fifth of the fleet needs the operator, so the Overview has a long list to show.
    const fleet = syntheticFleet(sessions);
    const base = await measurePages(browser, running, { sessions: [], fleet: syntheticFleet([]) });
    const full = await measurePages(browser, running, { sessions, fleet });
    const same = 'same page, empty fleet';
    const target = { render: 'render ≤ 100 ms main-thread work', update: 'update ≤ 16 ms main-thread work' };
    const label = `${seeded}, ${fleet.needsYou.length} needing you`;
    return [
      uiFigure(`ui Overview render (${label})`, same, full.overviewRender, base.overviewRender, target.render),
      uiFigure(
        `ui Overview update on attention.changed (${label})`,
        same,
        full.overviewEvent,
        base.overviewEvent,
        target.update,
      ),
      uiFigure(`ui Sessions render (${label})`, same, full.sessionsRender, base.sessionsRender, target.render),
      uiFigure(
        `ui Sessions update on sessions.changed (${label})`,
        same,
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
  const settled = inFlight(page);
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
      await settled();
      return taskTime(cdp, page, () => show(page, 'overview', '[data-testid="needs-you-list"] li', needing));
    });
    let n = 0;
    const overviewEvent = await samples(EVENTS, async () => {
      const reason = `Waiting for your input: question ${++n}`;
      const next = structuredClone(data.fleet);
      if (next.needsYou[0]) next.needsYou[0].reason = reason;
      else next.review.memories = n;
      const expected = next.needsYou[0] ? reason : `${n} memories`;
      await settled();
      return taskTime(cdp, page, async () => {
        running.core.events.emit('attention.changed', next);
        await page.waitForFunction((t) => document.body.textContent?.includes(t), expected, { polling: 'raf' });
      });
    });

    const sessionsRender = await samples(RENDERS, async () => {
      await show(page, 'settings', 'h1', 1);
      await settled();
      return taskTime(cdp, page, () => show(page, 'sessions', '[data-session]', rows));
    });
    // A row in view (the first workspace's), which is the one whose change the page has to draw.
    const target = byWorkspace(data.sessions)[0]?.[1][2];
    const sessionsEvent = await samples(EVENTS, async () => {
      const message = `step ${++n} done`;
      const session: Session = target ? { ...target, agentMessage: message } : syntheticSession(message);
      await settled();
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
    agent: 'claude',
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

/**
 * Navigates to a page and waits until its title is shown with all `count` items matching
 * `selector`, or, for a long list that renders progressively, with the items that fill the view:
 * some rendered, and the placeholder for the rest below the view.
 */
async function show(page: Page, route: string, selector: string, count: number): Promise<void> {
  const title = route[0]?.toUpperCase() + route.slice(1);
  await page.evaluate((r) => (window.location.hash = `#/${r}`), route);
  await page.waitForFunction(
    ({ title, selector, count }) => {
      if (document.querySelector('h1')?.textContent !== title) return false;
      const items = document.querySelectorAll(selector).length;
      if (items >= count) return true;
      const pending = document.querySelector('[data-pending]');
      return items > 0 && pending !== null && pending.getBoundingClientRect().top >= window.innerHeight;
    },
    { title, selector, count },
    { polling: 'raf' },
  );
}
