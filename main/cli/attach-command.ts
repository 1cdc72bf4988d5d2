import type { Argv } from 'yargs';
import { WebSocket } from 'ws';
import type { Session } from '../../shared/contract';
import type { TerminalSize } from '../../shared/terminal';
import { TERMINAL_MAX_INPUT, TERMINAL_PROTOCOL, TerminalClose, terminalPath } from '../../shared/terminal';
import { dataDirOf, type CliContext, type CliOutput } from './cli-context';
import { detachKeys } from './detach-keys';
import { CliError, EXIT } from './exit-codes';
import { connectedApp, type ServeFile } from './running-app';

/** How long attach waits for a session still being created to have its window. */
const START_WAIT_MS = 180_000;
const POLL_MS = 500;

/**
 * What a full-screen program may leave switched on when its stream stops mid-way (the viewer is
 * killed on detach, so tmux's own goodbye may never arrive): the main screen back, the cursor shown,
 * mouse reporting, bracketed paste and application keypad off, colours reset.
 */
const RESTORE_TERMINAL = '\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b>\x1b[0m';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The terminal's size, within what the host accepts (80×24 when the output is not a terminal). */
export function terminalSize(out: CliOutput): TerminalSize {
  const clamp = (n: number | undefined, fallback: number, max: number): number =>
    Math.min(max, Math.max(2, n && Number.isFinite(n) ? Math.floor(n) : fallback));
  return { cols: clamp(out.columns, 80, 500), rows: clamp(out.rows, 24, 200) };
}

/** Splits input into messages the host takes (TERMINAL_MAX_INPUT characters), never inside a surrogate pair. */
export function inputMessages(data: string): string[] {
  const out: string[] = [];
  let rest = data;
  while (rest.length > TERMINAL_MAX_INPUT) {
    let cut = TERMINAL_MAX_INPUT;
    const last = rest.charCodeAt(cut - 1);
    if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) out.push(rest);
  return out.map((chunk) => JSON.stringify({ type: 'input', data: chunk }));
}

/**
 * The UI's credential, as a browser gets it: the operator's start token (serve.json) swapped for the
 * session cookie at `/?token=`. The terminal endpoint takes that cookie only, never a bearer token.
 */
async function uiCookie(serveFile: ServeFile): Promise<string> {
  const res = await fetch(`${serveFile.url}/?token=${encodeURIComponent(serveFile.token)}`, { redirect: 'manual' });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new CliError(`Nexus at ${serveFile.url} did not sign the terminal in (HTTP ${res.status}).`);
  return cookie;
}

/** Opens the terminal WebSocket; a refusal rejects with the host's reason and HTTP status. */
function openSocket(serveFile: ServeFile, sessionId: string, cookie: string): Promise<WebSocket> {
  const ws = new WebSocket(`${serveFile.url.replace(/^http/, 'ws')}${terminalPath(sessionId)}`, TERMINAL_PROTOCOL, {
    headers: { cookie },
    origin: serveFile.url,
    perMessageDeflate: false,
  });
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        const message = /"message":"([^"]*)"/.exec(body)?.[1] ?? `HTTP ${res.statusCode}`;
        reject(Object.assign(new CliError(message), { status: res.statusCode }));
      });
      ws.terminate();
    });
    ws.once('error', (e) => reject(new CliError(`The terminal did not open: ${e.message}`)));
    ws.once('open', () => resolve(ws));
  });
}

/** Waits while the session is being created; fails for one in error or exited. */
async function liveSession(call: (ref: string) => Promise<Session>, ref: string, say: (s: string) => void) {
  const deadline = Date.now() + START_WAIT_MS;
  let session = await call(ref);
  if (session.status === 'creating') say(`Waiting for ${ref} to start…`);
  while (session.status === 'creating' && Date.now() < deadline) {
    await sleep(POLL_MS);
    session = await call(ref);
  }
  const name = `${session.workspaceName}/${session.name}`;
  if (session.status === 'error') throw new CliError(`Session ${name} is in error: ${session.reason ?? 'no reason'}`);
  if (session.status === 'exited') throw new CliError(`Session ${name} has exited: its agent is not running.`);
  if (session.status === 'creating') throw new CliError(`Session ${name} is still starting; try again shortly.`);
  return session;
}

/**
 * Relays this terminal to the socket until it closes: raw keys in (prefix + d detaches), screen
 * bytes out, the size at start and on each SIGWINCH; the terminal is restored however it ends.
 */
function relay(ctx: CliContext, ws: WebSocket): Promise<{ code: number; reason: string; detached: boolean }> {
  const { stdin, stdout } = ctx;
  const keys = detachKeys();
  let detached = false;
  const resize = (): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'resize', ...terminalSize(stdout) }));
  };
  const onKeys = (chunk: Buffer | string): void => {
    const step = keys(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    if (step.forward && ws.readyState === ws.OPEN) for (const m of inputMessages(step.forward)) ws.send(m);
    if (step.detach) {
      detached = true;
      ws.close(TerminalClose.normal, 'Detached.');
    }
  };
  resize();
  ws.on('message', (data: Buffer, isBinary: boolean) => void (isBinary ? stdout.write(data) : undefined));
  const stopWinch = ctx.onSignal('SIGWINCH', resize);
  stdin.setRawMode?.(true);
  stdin.on('data', onKeys);
  stdin.resume();
  return new Promise((resolve) => {
    ws.once('close', (code: number, reason: Buffer) => {
      stopWinch();
      stdin.removeListener('data', onKeys);
      stdin.setRawMode?.(false);
      stdin.pause();
      stdout.write(RESTORE_TERMINAL);
      resolve({ code, reason: reason.toString(), detached });
    });
  });
}

export const attachCommand = (ctx: CliContext, exit: (code: number) => void) => (cli: Argv) =>
  cli.command(
    'attach <session>',
    "your terminal on the session's window (as tmux attach); Ctrl-b d detaches, the session runs on",
    (y) =>
      y
        .strict()
        .positional('session', { type: 'string', describe: 'workspace/session, or the session id', demandOption: true })
        .epilog(
          'Every key goes to the agent, Ctrl-c included. Ctrl-b d detaches; Ctrl-b Ctrl-b sends one Ctrl-b. ' +
            'Works for sessions on remote engines too.',
        ),
    async (argv) => {
      if (!ctx.stdin.isTTY || !ctx.stdin.setRawMode)
        throw new CliError('nexus attach needs a terminal on stdin (for a snapshot of the pane use the UI or MCP).');
      const say = (text: string): void => void ctx.stderr.write(`${text}\n`);
      const app = await connectedApp(dataDirOf(ctx, argv.dataDir as string | undefined));
      const session = await liveSession((ref) => app.call('sessions.get', { session: ref }), argv.session, say);
      const name = `${session.workspaceName}/${session.name}`;
      const cookie = await uiCookie(app.serveFile);
      const deadline = Date.now() + START_WAIT_MS;
      let ws: WebSocket | null = null;
      while (!ws) {
        // A session just running may not have its window yet: the host answers 409 until it has.
        ws = await openSocket(app.serveFile, session.id, cookie).catch(async (e: unknown) => {
          if ((e as { status?: number }).status !== 409 || Date.now() > deadline) throw e;
          await sleep(POLL_MS);
          return null;
        });
      }
      const end = await relay(ctx, ws);
      if (end.detached) say(`\r\n[detached from ${name}; it keeps running]`);
      else if (end.code === TerminalClose.ended) say(`\r\n[${name}: its window has closed]`);
      else {
        say(`\r\n[${name}: the terminal closed: ${end.reason || `code ${end.code}`}]`);
        exit(EXIT.failed);
      }
    },
  );
