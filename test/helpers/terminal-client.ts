import { WebSocket } from 'ws';
import { terminalPath } from '../../shared/terminal';

/** The UI cookie, as the browser gets it: the login exchange on `/?token=`. */
export async function uiCookie(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/?token=${token}`, { redirect: 'manual' });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error(`no cookie from the login exchange (HTTP ${res.status})`);
  return cookie;
}

export interface TerminalClient {
  ws: WebSocket;
  /** Everything received so far, as text. */
  output(): string;
  /** Resolves once the output contains `text` (or rejects after `ms`). */
  waitFor(text: string, ms?: number): Promise<void>;
  send(message: unknown): void;
  input(data: string): void;
  resize(cols: number, rows: number): void;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<{ code: number; reason: string }>;
}

export interface ConnectOptions {
  cookie?: string;
  origin?: string | null;
  headers?: Record<string, string>;
  /** Replaces `/api/terminal/<sessionId>` (for bad paths and query strings). */
  path?: string;
}

/** Opens the terminal WebSocket as a browser on the UI's origin would; rejects with the HTTP status on a refusal. */
export function connectTerminal(
  baseUrl: string,
  sessionId: string,
  opts: ConnectOptions = {},
): Promise<TerminalClient> {
  const origin = opts.origin === undefined ? baseUrl : opts.origin;
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${opts.path ?? terminalPath(sessionId)}`, {
    headers: { ...(opts.cookie ? { cookie: opts.cookie } : {}), ...opts.headers },
    ...(origin === null ? {} : { origin }),
  });
  let text = '';
  const waiters = new Set<() => void>();
  ws.on('message', (data: Buffer) => {
    text += data.toString('utf8');
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode }));
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        output: () => text,
        waitFor: (needle, ms = 15_000) =>
          new Promise<void>((ok, fail) => {
            const check = (): void => {
              if (!text.includes(needle)) return;
              waiters.delete(check);
              clearTimeout(timer);
              ok();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`terminal output never showed ${JSON.stringify(needle)}`));
            }, ms);
            waiters.add(check);
            check();
          }),
        send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
        input: (data) => ws.send(JSON.stringify({ type: 'input', data })),
        resize: (cols, rows) => ws.send(JSON.stringify({ type: 'resize', cols, rows })),
        closed,
        close: () => {
          ws.close(1000);
          return closed;
        },
      }),
    );
  });
}

/** The HTTP status of a refused upgrade (fails the test when the upgrade succeeds). */
export async function refusedStatus(baseUrl: string, sessionId: string, opts: ConnectOptions): Promise<number> {
  try {
    const client = await connectTerminal(baseUrl, sessionId, opts);
    await client.close();
  } catch (e) {
    const status = (e as { status?: number }).status;
    if (status) return status;
    throw e;
  }
  throw new Error('the terminal accepted the connection');
}
