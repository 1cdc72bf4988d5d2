/**
 * Permission decisions with the real agent CLI (default mode) and the scripted model, seen in
 * headless Chromium: the Overview in one tab, the session page with its live terminal in another.
 *  - model's tool_use → the request visible on the Overview (the CLI opens its dialog, runs the
 *    PermissionRequest hook, nexus-hook asks core over NATS, permissions.changed reaches the page),
 *    beside a text reply from the same model → that text on the session's terminal (the CLI, tmux,
 *    the terminal socket, xterm: the path every answer takes), measured in the same run;
 *  - Allow clicked → the dialog gone from the terminal (permissions.decide, the NATS reply, the
 *    hook's decision, the CLI's redraw, the terminal), beside a bare `docker exec true` round trip.
 * Times are the host clock on both sides (the stand-in in this process, Date.now() in the page).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium, type Page } from '@playwright/test';
import type { ModelRequest } from '../test/helpers/model-api';
import { startRealAgentFleet } from '../test/helpers/real-agent-fleet';
import { compare, measure, type Benchmark, type Measurement } from './lib';

const ROUNDS = 12;
const DIALOG = 'Do you want to proceed';
const run = promisify(execFile);

/**
 * Starts watching, in the page, for the moment an element matching `selector` first does (or no
 * longer does) hold `text`; `seenAt` then gives that moment's Date.now(). Plain source text, so the
 * bundler's helpers never end up inside the page.
 */
const WATCH = `({ key, selector, text, present }) => {
  window.__seen = window.__seen || {};
  window.__seen[key] = new Promise((resolve) => {
    const holds = () => Array.from(document.querySelectorAll(selector)).some((e) => (e.textContent || '').includes(text)) === present;
    if (holds()) return resolve(Date.now());
    const obs = new MutationObserver(() => {
      if (!holds()) return;
      obs.disconnect();
      resolve(Date.now());
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}`;
async function watch(page: Page, key: string, selector: string, text: string, present: boolean): Promise<void> {
  await page.evaluate(`(${WATCH})(${JSON.stringify({ key, selector, text, present })})`);
}
const seenAt = (page: Page, key: string): Promise<number> =>
  page.evaluate(
    (k) => (window as unknown as { __seen: Record<string, Promise<number>> }).__seen[k] as Promise<number>,
    key,
  );

function lastUserText(req: ModelRequest): string {
  const last = [...(req.body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return last ? JSON.stringify(last.content) : '';
}

function stats(ms: number[]): Measurement {
  const s = [...ms].sort((a, b) => a - b);
  const pct = (p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
  return { n: s.length, p50Ms: pct(50), p95Ms: pct(95), p99Ms: pct(99), perSecond: 0 };
}

const bench: Benchmark = async () => {
  const fleet = await startRealAgentFleet();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    // The stand-in's answers, and when each began (the clock starts when the model answers).
    const answeredAt = new Map<string, number>();
    fleet.env.api.onTurn((req) => {
      const said = lastUserText(req);
      if (said.includes('tool_result')) return { text: 'Done.' };
      const m = /(say|touch)-(\d+)/.exec(said);
      if (!m) return { text: 'OK.' };
      answeredAt.set(m[0], Date.now());
      return m[1] === 'say'
        ? { text: `reply ${m[0]} here` }
        : { toolUse: { name: 'Bash', input: { command: `touch /tmp/${m[0]}`, description: `Round ${m[2]}` } } };
    });
    await fleet.createWorkspace('bench-perm');
    const s = await fleet.createSession('bench-perm', { name: 'asker', initialMessage: 'Hello.' });
    // Idle after the first turn's Stop (SessionStart's idle carries a message, Stop's none).
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && x.agentMessage === null);
    const { containerId } = await fleet.call('workspaces.get', { workspace: 'bench-perm' });
    if (!containerId) throw new Error('the workspace has no container');

    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const overview = await context.newPage();
    await overview.goto(fleet.running.host.loginUrl);
    await overview.waitForSelector('h1:text("Overview")');
    const detail = await context.newPage();
    await detail.goto(`${fleet.running.host.url}/#/sessions/${s.id}`);
    await detail.waitForSelector('[data-testid="terminal-state"]:text("Live")', { timeout: 60_000 });
    const rows = '[data-testid="session-terminal"] .xterm-rows';
    const card = '[data-testid="needs-you-list"] [data-testid="permission-request"]';
    // The turn's Stop hook: idle again, at a time after the message went out.
    const idleSince = (t: number) =>
      fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && Date.parse(x.agentStateAt ?? '') > t);

    const reply: number[] = [];
    const visible: number[] = [];
    const closed: number[] = [];
    // Where the time goes: when the PermissionRequest hook published (its own clock, in the container),
    // when core held the request, for the round in flight.
    const legs = { toHook: [] as number[], toCore: [] as number[], toPage: [] as number[] };
    let round = { key: '', hookAt: NaN, heldAt: NaN };
    const follow = fleet.running.core.events.subscribe((e) => {
      if (e.name === 'sessions.changed') {
        const x = (e.payload as { session?: { id: string; agentState: string; agentStateAt: string | null } }).session;
        if (x?.id === s.id && x.agentState === 'waiting_permission' && Number.isNaN(round.hookAt))
          round.hookAt = Date.parse(x.agentStateAt ?? '');
      } else if (e.name === 'permissions.changed') {
        const held = (e.payload as { requests: { askedAt: string; toolInput: unknown }[] }).requests.find((r) =>
          JSON.stringify(r.toolInput).includes(`/tmp/${round.key}"`),
        );
        if (held && Number.isNaN(round.heldAt)) round.heldAt = Date.parse(held.askedAt);
      }
    });
    for (let i = 0; i < ROUNDS; i++) {
      // Baseline: a text answer, until it is on the terminal.
      const say = `say-${i}`;
      await watch(detail, say, rows, `reply ${say} here`, true);
      let sent = Date.now();
      await fleet.call('sessions.sendMessage', { session: s.id, text: `Please ${say}.` });
      reply.push((await seenAt(detail, say)) - (answeredAt.get(say) ?? NaN));
      await idleSince(sent);

      // A tool call that asks: until the request is on the Overview; then Allow until the dialog is gone.
      const touch = `touch-${i}`;
      await watch(overview, touch, card, `touch /tmp/${touch}`, true);
      await watch(detail, `${touch}-dialog`, rows, DIALOG, true);
      sent = Date.now();
      round = { key: touch, hookAt: NaN, heldAt: NaN };
      await fleet.call('sessions.sendMessage', { session: s.id, text: `Please ${touch}.` });
      const seen = await seenAt(overview, touch);
      const answered = answeredAt.get(touch) ?? NaN;
      visible.push(seen - answered);
      legs.toHook.push(round.hookAt - answered);
      legs.toCore.push(round.heldAt - round.hookAt);
      legs.toPage.push(seen - round.heldAt);
      await seenAt(detail, `${touch}-dialog`);
      await watch(detail, `${touch}-closed`, rows, DIALOG, false);
      const clicked = (await overview.evaluate(`(({ card, text }) => {
        const el = Array.from(document.querySelectorAll(card)).find((e) => (e.textContent || '').includes(text));
        const allow = Array.from(el ? el.querySelectorAll('button') : []).find((b) => (b.textContent || '').trim() === 'Allow once');
        const t = Date.now();
        allow.click();
        return t;
      })(${JSON.stringify({ card, text: `touch /tmp/${touch}` })})`)) as number;
      closed.push((await seenAt(detail, `${touch}-closed`)) - clicked);
      await idleSince(sent);
    }
    follow.dispose();
    await context.close();
    const exec = await measure(() => run('docker', ['exec', containerId, 'true']), {
      iterations: ROUNDS * 2,
      concurrency: 1,
      warmup: 2,
    });
    const p50 = (ms: number[]): number => Math.round(stats(ms).p50Ms);
    return [
      {
        ...compare(
          "permission: model's tool_use → request on the Overview (real CLI, Chromium)",
          "model's text reply → text on the session terminal",
          stats(visible),
          stats(reply),
          'p95 ≤ 1 s',
        ),
        extra: {
          'p50 ms, model → PermissionRequest hook publishes': p50(legs.toHook),
          'p50 ms, hook → core holds the request': p50(legs.toCore),
          'p50 ms, core → card on the Overview': p50(legs.toPage),
        },
      },
      compare(
        'permission: Allow clicked → dialog gone from the session terminal (real CLI, Chromium)',
        'bare docker exec true round trip',
        stats(closed),
        exec,
        'p95 ≤ 1 s',
      ),
    ];
  } finally {
    await browser.close();
    await fleet.dispose();
  }
};
export default bench;
