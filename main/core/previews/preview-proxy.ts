import { Agent, request, type ClientRequestArgs, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { isNexusError } from '../../../shared/errors';
import { spliceBody } from './splice-body';
import type { Logger } from '../log';
import type { PreviewName } from './preview-host';
import type { PreviewSocket } from './preview-dial';

/** A preview resolved to something that can open connections to its port (`key`: one pool per key). */
export interface PreviewUpstream {
  key: string;
  dial(): Promise<PreviewSocket>;
}

/** The UI's cookie (main/host/session-auth.ts, COOKIE_NAME; main/host/preview-origin.test.ts holds them equal). */
export const UI_COOKIE = 'nexus_session';

/** Hop-by-hop headers (RFC 9110 7.6.1): never forwarded either way. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The request's Cookie header without the UI's cookie (a browser never sends it here; a script could try). */
export function withoutUiCookie(cookie: string | undefined): string | undefined {
  if (cookie === undefined) return undefined;
  const kept = cookie
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c && c.split('=')[0]?.trim() !== UI_COOKIE);
  return kept.length > 0 ? kept.join('; ') : undefined;
}

/**
 * A Set-Cookie of the previewed app, made host-only (its `Domain` attribute dropped), so it can never be
 * sent to another `*.localhost` origin (another session's preview, or the UI opened at `localhost`).
 */
export function hostOnlyCookie(setCookie: string): string {
  return setCookie
    .split(';')
    .filter((part, i) => i === 0 || !/^\s*domain\s*=/i.test(part))
    .join(';');
}

/** How long a connection dialled ahead may wait for a request (well inside a dev server's idle limits). */
const SPARE_MS = 2000;

class UpstreamAgent extends Agent {
  /** A connection dialled ahead: a spliced body's connection is closed after it, so the next asset needs one. */
  private spare: { socket: PreviewSocket; at: number; onError: () => void } | null = null;
  private warming = false;
  private closed = false;

  constructor(private readonly upstream: PreviewUpstream) {
    super({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: 32, maxFreeSockets: 8, timeout: 60_000 });
  }

  /** Dials the next connection now (a spliced body is taking this one): it is ready when the next request comes. */
  warm(): void {
    if (this.spare || this.warming) return;
    this.warming = true;
    this.upstream.dial().then(
      (socket) => {
        this.warming = false;
        if (this.closed) return void socket.destroy();
        const onError = (): void => this.drop(socket);
        socket.on('error', onError);
        socket.once('close', onError);
        this.spare = { socket, at: Date.now(), onError };
      },
      () => void (this.warming = false),
    );
  }

  private drop(socket: PreviewSocket): void {
    if (this.spare?.socket !== socket) return;
    this.spare = null;
    socket.destroy();
  }

  private takeSpare(): PreviewSocket | null {
    const spare = this.spare;
    this.spare = null;
    if (!spare) return null;
    spare.socket.off('error', spare.onError);
    spare.socket.off('close', spare.onError);
    if (Date.now() - spare.at <= SPARE_MS && !spare.socket.destroyed && !spare.socket.readableEnded)
      return spare.socket;
    spare.socket.destroy();
    return null;
  }

  override createConnection(
    _options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const spare = this.takeSpare();
    if (spare) {
      callback?.(null, spare);
      return undefined;
    }
    this.upstream.dial().then(
      (s) => callback?.(null, s),
      (e: unknown) => callback?.(e instanceof Error ? e : new Error(String(e)), undefined as unknown as Duplex),
    );
    return undefined;
  }

  override destroy(): void {
    this.closed = true;
    this.spare?.socket.destroy();
    this.spare = null;
    super.destroy();
  }
}

/**
 * The reverse proxy of every preview origin: HTTP streamed both ways (no buffering: a 10 MB asset or a
 * server-sent stream flows as it comes), WebSocket upgrades piped byte for byte (hot reload). Nothing of
 * Nexus exists on a preview origin: every request there goes to the app, none to a Nexus route.
 */
export class PreviewProxy {
  private readonly agents = new Map<string, UpstreamAgent>();

  constructor(
    private readonly resolve: (name: PreviewName) => Promise<PreviewUpstream>,
    private readonly log: Logger,
  ) {}

  private agentFor(u: PreviewUpstream): UpstreamAgent {
    let a = this.agents.get(u.key);
    if (!a) this.agents.set(u.key, (a = new UpstreamAgent(u)));
    return a;
  }

  async handle(req: IncomingMessage, res: ServerResponse, name: PreviewName): Promise<void> {
    let upstream: PreviewUpstream;
    try {
      upstream = await this.resolve(name);
    } catch (e) {
      return plain(res, isNexusError(e) && e.code === 'not_found' ? 404 : 502, messageOf(e));
    }
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v;
    const cookie = withoutUiCookie(req.headers.cookie);
    if (cookie === undefined) delete headers.cookie;
    else headers.cookie = cookie;
    // A large body the kernel moves (splice-body.ts): its app connection is closed after it, which is no error.
    let spliced = false;
    const agent = this.agentFor(upstream);
    const out = request({ method: req.method, path: req.url, headers, agent }, (up) => {
      const back: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP.has(k)) back[k] = v;
      if (up.headers['set-cookie']) back['set-cookie'] = up.headers['set-cookie'].map(hostOnlyCookie);
      res.writeHead(up.statusCode ?? 502, back);
      spliced = spliceBody(req, up, res, (error) => {
        if (error) this.log.debug('a spliced preview body was cut short', { port: name.port, error });
      });
      if (spliced) agent.warm();
      else forwardBody(up, res);
    });
    out.on('error', (e) => {
      if (spliced) return;
      if (!res.headersSent) plain(res, 502, `The preview's server did not answer: ${e.message}`);
      else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  }

  /** A WebSocket (or any) upgrade on a preview origin: the request head is written to the app, then bytes flow. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, name: PreviewName): void {
    socket.on('error', () => socket.destroy());
    void this.resolve(name)
      .then((u) => u.dial())
      .then(
        (up) => {
          const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
          for (let i = 0; i < req.rawHeaders.length; i += 2) {
            const k = req.rawHeaders[i] ?? '';
            const v = req.rawHeaders[i + 1] ?? '';
            if (k.toLowerCase() === 'cookie') {
              const kept = withoutUiCookie(v);
              if (kept !== undefined) lines.push(`${k}: ${kept}`);
            } else lines.push(`${k}: ${v}`);
          }
          up.write(`${lines.join('\r\n')}\r\n\r\n`);
          if (head.length > 0) up.write(head);
          up.on('error', () => socket.destroy());
          socket.on('close', () => up.destroy());
          up.on('close', () => socket.destroy());
          up.pipe(socket);
          socket.pipe(up);
        },
        (e: unknown) => {
          this.log.debug('preview upgrade refused', { port: name.port, error: e });
          const status = isNexusError(e) && e.code === 'not_found' ? '404 Not Found' : '502 Bad Gateway';
          socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
        },
      );
  }

  dispose(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}

/**
 * How much of an answer may wait in the browser's socket before the app's side is paused. A pipe pauses at the
 * socket's 16 KiB mark, so every 64 KiB read of a large asset stopped and restarted the upstream read (a wake-up
 * of each hop per chunk: docs/performance.md "Previews"); with room for a few MB the proxy reads and writes in
 * runs. The bound keeps a slow browser from making core hold a whole asset.
 */
export const BODY_ALLOWANCE = 4 * 1024 * 1024;

/** The app's answer body to the browser as it comes: each chunk written at once, paused past BODY_ALLOWANCE. */
function forwardBody(up: IncomingMessage, res: ServerResponse): void {
  const resume = (): void => void up.resume();
  up.on('data', (chunk: Buffer) => {
    if (!res.write(chunk) && res.writableLength > BODY_ALLOWANCE) {
      up.pause();
      res.once('drain', resume);
    }
  });
  up.on('end', () => res.end());
  up.on('error', () => res.destroy());
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function plain(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}
