import { build } from 'esbuild';
import path from 'node:path';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import {
  events,
  isOpName,
  operations,
  type EventName,
  type EventPayload,
  type OpName,
  type OpOutput,
} from '../../shared/contract';
import type { WireError } from '../../shared/errors';

/**
 * The real renderer (renderer/src/main.tsx, bundled by esbuild) in headless Chromium, against a stand-in of its
 * host's HTTP endpoints, named as such: POST /api/rpc/<op> answered from the test's answers (each checked against
 * the contract's output schema first), GET /api/events as server-sent events the test emits, and on the phone's
 * https origin GET /api/phone/session signed in, with operations the contract keeps off the phone refused there.
 * A renderer test sees what an operator would (real DOM, layout and scrolling) without a core behind it.
 */

const root = path.resolve(import.meta.dirname, '../..');
const DESKTOP = 'http://nexus.test';
const PHONE = 'https://phone.nexus.test';

let bundle: Promise<{ js: string; css: string }> | null = null;

/** The renderer as the browser runs it, built once per test file. */
function rendererBundle(): Promise<{ js: string; css: string }> {
  bundle ??= build({
    entryPoints: [path.join(root, 'renderer/src/main.tsx')],
    bundle: true,
    write: false,
    outdir: path.join(root, 'dist/renderer-test'),
    format: 'iife',
    jsx: 'automatic',
    target: 'es2023',
    loader: { '.woff2': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    // React's production build: the development one takes several times as long to start on a loaded machine.
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  }).then((r) => ({
    js: r.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '',
    css: r.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '',
  }));
  return bundle;
}

type Answer<K extends OpName> = OpOutput<K> | ((input: unknown) => OpOutput<K>);
type Answers = { [K in OpName]?: Answer<K> };

/** One opened page of the renderer and the stand-in host behind it. */
export interface RendererPage {
  page: Page;
  /** Every operation the renderer called, in order, with its input and the headers that came with it. */
  calls: { op: string; input: unknown; headers: Record<string, string> }[];
  /** Sets what an operation answers from now on. */
  answer<K extends OpName>(op: K, answer: Answer<K>): void;
  /** Sends a push event to the renderer's event stream (the desktop's; the phone has none). */
  emit<K extends EventName>(name: K, payload: EventPayload<K>): void;
  /** The calls of one operation. */
  callsOf(op: OpName): { input: unknown; headers: Record<string, string> }[];
  /** Fails with what went wrong behind the page's back (an error thrown in it, an answer off the contract). */
  done(): void;
}

interface HostState {
  answers: Map<string, unknown>;
  calls: RendererPage['calls'];
  queued: string[];
  problems: string[];
}

/**
 * One Chromium for a test file, with a page for each origin reused from test to test (each `open` loads the
 * renderer anew, with fresh answers: the browser's code cache keeps a reload short).
 */
export class RendererPages {
  private readonly pages = new Map<string, Promise<{ page: Page; host: { state: HostState } }>>();
  private loads = 0;

  private constructor(private readonly browser: Browser) {}

  static async launch(): Promise<RendererPages> {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    // Built here, in the test file's set-up (the first test would otherwise spend its time bundling).
    await rendererBundle();
    return new RendererPages(browser);
  }

  /** Opens `hash` (e.g. `#/sessions/s1`) of the renderer on the desktop origin, or on the phone's. */
  async open(hash: string, opts: { phone?: boolean; answers?: Answers } = {}): Promise<RendererPage> {
    const origin = opts.phone ? PHONE : DESKTOP;
    let made = this.pages.get(origin);
    if (!made) {
      made = this.makePage(origin, opts.phone === true);
      this.pages.set(origin, made);
    }
    const { page, host } = await made;
    const state: HostState = {
      answers: new Map(Object.entries(opts.answers ?? {})),
      calls: [],
      queued: [],
      problems: [],
    };
    host.state = state;
    // A new query string: a new document (a hash alone would navigate within the old one).
    await page.goto(`${origin}/?load=${++this.loads}${hash}`);
    return {
      page,
      calls: state.calls,
      answer: (op, a) => void state.answers.set(op, a),
      emit: (name, payload) => {
        events[name].parse(payload);
        state.queued.push(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
      },
      callsOf: (op) => state.calls.filter((c) => c.op === op),
      done: () => {
        if (state.problems.length > 0) throw new Error(state.problems.join('\n'));
      },
    };
  }

  async close(): Promise<void> {
    await this.browser.close();
  }

  private async makePage(origin: string, phone: boolean): Promise<{ page: Page; host: { state: HostState } }> {
    const { js, css } = await rendererBundle();
    const context = await this.browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 900 },
      serviceWorkers: 'block',
    });
    const page = await context.newPage();
    // A locator that finds nothing fails well before the test's own timeout, with what it looked for.
    page.setDefaultTimeout(15_000);
    const host = { state: { answers: new Map(), calls: [], queued: [], problems: [] } as HostState };
    page.on('pageerror', (e) => host.state.problems.push(`page error: ${e.message}`));

    const rpc = async (route: Route, op: string): Promise<void> => {
      const { answers, calls, problems } = host.state;
      const request = route.request();
      const input: unknown = JSON.parse(request.postData() ?? '{}');
      calls.push({ op, input, headers: request.headers() });
      const fail = (status: number, error: WireError) => route.fulfill({ status, json: { error } });
      if (!isOpName(op)) return fail(404, { code: 'not_found', message: `no operation ${op}` });
      if (phone && !operations[op].phone)
        return fail(403, { code: 'forbidden', message: `${op} is not offered on the phone` });
      const given = answers.get(op);
      if (given === undefined)
        return fail(404, { code: 'not_found', message: `the stand-in host has no answer for ${op}` });
      const result = typeof given === 'function' ? (given as (i: unknown) => unknown)(input) : given;
      const checked = operations[op].output.safeParse(result);
      if (!checked.success) {
        problems.push(`the test's answer for ${op} does not match the contract: ${checked.error.message}`);
        return fail(500, { code: 'internal', message: 'bad answer' });
      }
      return route.fulfill({ json: { result } });
    };

    await page.route(`${origin}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/')
        return route.fulfill({
          contentType: 'text/html',
          body:
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Nexus</title>' +
            '<link rel="stylesheet" href="/app.css"></head><body><div id="root"></div><script src="/app.js"></script></body></html>',
        });
      if (url.pathname === '/app.js')
        return route.fulfill({
          contentType: 'text/javascript',
          headers: { 'cache-control': 'max-age=3600' },
          body: js,
        });
      if (url.pathname === '/app.css') return route.fulfill({ contentType: 'text/css', body: css });
      if (url.pathname.startsWith('/api/rpc/')) return rpc(route, url.pathname.slice('/api/rpc/'.length));
      if (url.pathname === '/api/events') {
        // Each connection delivers what was emitted since the last one; the stream then ends and the browser's
        // EventSource connects again after `retry` ms (a real host keeps it open: the events arrive the same way).
        const body = `retry: 50\n\n${host.state.queued.join('')}`;
        host.state.queued = [];
        return route.fulfill({ contentType: 'text/event-stream', body });
      }
      if (url.pathname === '/api/phone/session')
        return route.fulfill({ json: { signedIn: true, device: 'Test phone', csrf: 'csrf-of-the-test' } });
      return route.fulfill({ status: 404, body: 'not in the stand-in host' });
    });
    return { page, host };
  }
}
