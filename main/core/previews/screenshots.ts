import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import type { Logger } from '../log';

/** Debian's and other systems' Chromium; NEXUS_CHROMIUM (or CHROMIUM_PATH, as the e2e config reads it) names another. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.NEXUS_CHROMIUM ?? env.CHROMIUM_PATH;
  if (named) return existsSync(named) ? named : null;
  return (
    ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p)) ?? null
  );
}

/** The bounds of one headless Chromium shared by every screenshot (docs/previews.md). */
export const SHOT_BOUNDS = {
  /** Navigation and capture of one preview, together. */
  perShotMs: 15_000,
  /** Previews per turn end (a session with more ports gets its first few). */
  perTurn: 4,
  /** The browser is closed after this long without a screenshot. */
  idleCloseMs: 60_000,
  viewport: { width: 1280, height: 800 },
} as const;

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--renderer-process-limit=1',
  '--js-flags=--max-old-space-size=192',
];

/**
 * Takes screenshots of preview origins with one reused headless Chromium: one shot at a time, each bounded in
 * time, in a fresh context (no cookie or storage of one preview seen by the next), the browser closed when idle.
 */
export class Screenshotter {
  private browser: Promise<Browser> | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly chromium: string | null,
    private readonly log: Logger,
  ) {}

  get available(): boolean {
    return this.chromium !== null;
  }

  /** A JPEG of `url` as a 1280×800 viewport shows it, or null when it could not be taken in time. */
  shoot(url: string): Promise<Buffer | null> {
    const job = this.tail.then(() => this.shootNow(url));
    this.tail = job.catch(() => undefined);
    return job;
  }

  private async open(): Promise<Browser> {
    if (!this.chromium) throw new Error('no Chromium on this machine');
    const { chromium } = await import('playwright-core');
    const b = await chromium.launch({ executablePath: this.chromium, headless: true, args: ARGS, timeout: 30_000 });
    b.on('disconnected', () => (this.browser = null));
    return b;
  }

  private async shootNow(url: string): Promise<Buffer | null> {
    if (this.closed) return null;
    if (this.idle) clearTimeout(this.idle);
    // A launch that failed is not kept: the next turn end tries again.
    this.browser ??= this.open().catch((e: unknown) => {
      this.browser = null;
      throw e;
    });
    let browser: Browser;
    try {
      browser = await this.browser;
    } catch (e) {
      this.log.warn('the screenshots browser did not start', { chromium: this.chromium, error: e });
      return null;
    }
    const context = await browser.newContext({ viewport: SHOT_BOUNDS.viewport, serviceWorkers: 'block' });
    let timer: NodeJS.Timeout | undefined;
    try {
      const shot = (async () => {
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'load', timeout: SHOT_BOUNDS.perShotMs });
        return page.screenshot({ type: 'jpeg', quality: 70, timeout: SHOT_BOUNDS.perShotMs });
      })();
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SHOT_BOUNDS.perShotMs)));
      return await Promise.race([shot, late]);
    } catch (e) {
      this.log.warn('preview screenshot failed', { url, error: e });
      return null;
    } finally {
      clearTimeout(timer);
      await context.close().catch(() => undefined);
      this.idle = setTimeout(() => void this.closeBrowser(), SHOT_BOUNDS.idleCloseMs);
      this.idle.unref();
    }
  }

  private async closeBrowser(): Promise<void> {
    const b = this.browser;
    this.browser = null;
    if (b) await (await b.catch(() => null))?.close().catch(() => undefined);
  }

  async dispose(): Promise<void> {
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    await this.tail;
    await this.closeBrowser();
  }
}
