/**
 * The Changes panel's first render of a large change in headless Chromium: the first page (50
 * files, 100 changed lines each, of a 1,000-file / 100,000-line change, as bench/diff.bench.ts
 * makes it in git) arriving for a session whose page is open, until the diff is on screen. The
 * baseline, in the same page and run: diff2html's own `html()` of the same patches put in the page
 * with `innerHTML` in a box like the panel's (what the panel did before it rendered a long page
 * progressively). Main-thread task time over CDP; the page counts as shown when the files that fill
 * the diff's box are on screen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Route } from '@playwright/test';
import type { FilePatch, Session, SessionChanges } from '../shared/contract/sessions';
import { serve } from '../main/serve';
import type { Benchmark } from './lib';
import { inFlight, launchChromium, samples, taskTime, uiFigure } from './ui-lib';

const RUNS = 10;
const FILES = 1000;
const PAGE = 50;
const LINES_PER_FILE = 100;
const D2H = join(process.cwd(), 'node_modules/diff2html/bundles/js/diff2html.min.js');

const bench: Benchmark = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-bench-ui-diff-'));
  const running = await serve({ dataDir, appRoot: process.cwd(), port: 0, config: { version: 'bench' } });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    // One session per sample, so each opens with nothing cached for its diff.
    const sessions = Array.from({ length: RUNS + 1 }, (_, i) => session(i));
    await page.route('**/api/rpc/sessions.list', (r) => r.fulfill({ json: { result: { sessions } } }));
    let held: Route | null = null;
    await page.route('**/api/rpc/sessions.diff', (r) => void (held = r));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const settled = inFlight(page, (url) => !url.includes('sessions.diff'));
    await page.goto(running.host.loginUrl);
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Overview');
    // diff2html's own bundle, served from the app's origin (its CSP allows scripts from 'self' only).
    await page.route('**/bench/diff2html.js', (r) => r.fulfill({ path: D2H, contentType: 'text/javascript' }));
    await page.addScriptTag({ url: '/bench/diff2html.js' });
    const changes = firstPage();
    const text = changes.patches.map((p) => p.diff).join('');
    await page.evaluate((t) => ((window as unknown as { benchDiff: string }).benchDiff = t), text);
    const files = `[data-testid="changes-diff"] .d2h-file-wrapper`;

    const panel = await samples(RUNS, async (i) => {
      await page.evaluate(() => (window.location.hash = '#/settings'));
      await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Settings');
      held = null;
      await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessions[i]?.id ?? '');
      await page.waitForFunction(() => document.querySelector('[data-testid="session-changes"]'));
      while (!held) await new Promise((r) => setTimeout(r, 10));
      await settled();
      const route: Route = held;
      return taskTime(cdp, page, async () => {
        await route.fulfill({ json: { result: { ...changes, sessionId: sessions[i]?.id } } });
        await page.waitForFunction(inView, files, { polling: 'raf' });
      });
    });
    const own = await samples(RUNS, async () => {
      await page.evaluate(() => document.querySelector('[data-bench-diff]')?.remove());
      await settled();
      return taskTime(cdp, page, () =>
        page.evaluate(() => {
          const w = window as unknown as { benchDiff: string; Diff2Html: { html(t: string, o: object): string } };
          const el = document.createElement('div');
          el.dataset.benchDiff = '';
          // The panel's box before this round (70vh, scrolling), without its per-file containment.
          el.style.maxHeight = '70vh';
          el.style.overflow = 'auto';
          el.innerHTML = w.Diff2Html.html(w.benchDiff, {
            outputFormat: 'line-by-line',
            drawFileList: false,
            matching: 'none',
            renderNothingWhenEmpty: false,
          });
          document.querySelector('[data-testid="session-changes"]')?.append(el);
        }),
      );
    });
    const lines = changes.patches.reduce((n, p) => n + p.diff.split('\n').length - 1, 0);
    const figure = uiFigure(
      `ui Changes panel first render, page of ${PAGE} files of ${FILES} / ${(FILES * LINES_PER_FILE).toLocaleString('en')} changed lines`,
      "diff2html's html() + innerHTML, same page",
      panel,
      own,
      'first page on screen ≤ 100 ms',
    );
    figure.extra = { ...figure.extra, pageDiffLines: lines, pageChars: text.length };
    return [figure];
  } finally {
    await browser.close();
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
export default bench;

/**
 * Whether the diff shows what fills its box: every file, or some with the placeholder for the rest
 * below the box's visible part (the panel renders a long page progressively).
 */
function inView(selector: string): boolean {
  const files = document.querySelectorAll(selector).length;
  if (files >= 50) return true;
  const pending = document.querySelector('[data-testid="changes-diff"] [data-pending]');
  const box = document.querySelector('[data-testid="changes-diff"]')?.getBoundingClientRect();
  return files > 0 && !!pending && !!box && pending.getBoundingClientRect().top >= Math.min(innerHeight, box.bottom);
}

/** What `sessions.diff` answers for the first page of that change (the same files git shows there). */
function firstPage(): SessionChanges {
  const patches: FilePatch[] = [];
  for (let f = 0; f < PAGE; f++) {
    const path = `src/f${f}.txt`;
    let diff = `diff --git a/${path} b/${path}\nindex 83db48f..bf269f4 100644\n--- a/${path}\n+++ b/${path}\n`;
    diff += `@@ -1,${LINES_PER_FILE * 2} +1,${LINES_PER_FILE * 2} @@\n`;
    for (let l = 1; l <= LINES_PER_FILE * 2; l++) diff += l % 2 ? `-${l}\n+${l} changed\n` : ` ${l}\n`;
    patches.push({ path, diff, truncated: false });
  }
  const changed = FILES * LINES_PER_FILE;
  return {
    sessionId: '',
    branch: 'nexus/big',
    summary: {
      base: 'main',
      ahead: 1,
      behind: 0,
      changedFiles: FILES,
      additions: changed,
      deletions: changed,
      uncommitted: true,
      unpushed: null,
      at: new Date().toISOString(),
    },
    commits: [{ sha: 'a'.repeat(40), subject: 'half of it', author: 'bench', at: new Date().toISOString() }],
    commitsTruncated: false,
    files: patches.map((p) => ({
      path: p.path,
      oldPath: null,
      status: 'modified',
      additions: LINES_PER_FILE,
      deletions: LINES_PER_FILE,
      binary: false,
    })),
    offset: 0,
    patches,
    note: null,
  };
}

function session(i: number): Session {
  const now = new Date().toISOString();
  return {
    id: `bench-diff-${i}`,
    workspaceId: 'bench-ws',
    workspaceName: 'bench',
    name: `big-${i}`,
    branch: 'nexus/big',
    agent: 'claude',
    status: 'exited',
    reason: null,
    taskId: null,
    toolsReason: null,
    agentState: 'idle',
    agentStateAt: now,
    agentMessage: null,
    createdAt: now,
    updatedAt: now,
  };
}
