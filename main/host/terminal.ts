import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { httpStatusOf, isNexusError } from '../../shared/errors';
import { TERMINAL_MAX_FRAME, TerminalClientMessage, TerminalClose, type TerminalSize } from '../../shared/terminal';
import type { Logger } from '../core/log';
import type { LiveWindow, SessionTerminals, TerminalViewer } from '../core/sessions/terminal';
import { checkHostAndOrigin } from './guard';
import { splitUrl } from './routes';
import type { SessionAuth } from './session-auth';

export interface TerminalEndpointDeps {
  terminals: Pick<SessionTerminals, 'resolve' | 'open'>;
  auth: SessionAuth;
  /** Read at each upgrade: the host knows its port only once it listens. */
  hosts(): ReadonlySet<string>;
  origins(): ReadonlySet<string>;
  log: Logger;
}

export interface TerminalEndpoint {
  /** Takes over an HTTP upgrade request (any path: only the terminal's is accepted). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

const PATH = /^\/api\/terminal\/([^/]+)$/;
/** The first message (a resize) must arrive within this time. */
const FIRST_MESSAGE_MS = 10_000;
const HEARTBEAT_MS = 30_000;
/** Input held while the viewer opens; more closes the socket. */
const MAX_QUEUED = 256;
/** Output is paused while this much is waiting to be sent to a slow client. */
const HIGH_WATER = 1024 * 1024;

type Verdict = { ok: true; target: LiveWindow } | { ok: false; status: number; message: string };

/**
 * The live terminal's WebSocket, `/api/terminal/<sessionId>`. It authenticates by itself (the HTTP
 * gate never sees an upgrade): the UI cookie only (no Authorization header of any kind, no query
 * string at all), Host and an Origin both our own, the session id a UUID of a session with a live
 * window. Then it adapts core's viewer: JSON messages in (the first a resize), screen bytes out.
 */
export function terminalEndpoint(deps: TerminalEndpointDeps): TerminalEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: TERMINAL_MAX_FRAME, perMessageDeflate: false });
  const live = new Set<WebSocket>();

  const check = async (req: IncomingMessage): Promise<Verdict> => {
    const raw = req.url ?? '/';
    const match = PATH.exec(splitUrl(raw).path);
    if (!match) return { ok: false, status: 404, message: 'No such route.' };
    if (raw.includes('?'))
      return { ok: false, status: 400, message: 'Credentials are not accepted in the query string.' };
    const guard = checkHostAndOrigin(req, deps.hosts(), deps.origins());
    if (!guard.ok) return { ok: false, status: 403, message: guard.reason };
    if (req.headers.origin === undefined) return { ok: false, status: 403, message: 'Origin required' };
    if (req.headers.authorization !== undefined || !deps.auth.hasUiCookie(req))
      return { ok: false, status: 401, message: 'The terminal opens from the Nexus UI only (its session cookie).' };
    try {
      return { ok: true, target: await deps.terminals.resolve(match[1] ?? '') };
    } catch (e) {
      if (isNexusError(e)) return { ok: false, status: httpStatusOf[e.code], message: e.message };
      throw e;
    }
  };

  const serve = (ws: WebSocket, target: LiveWindow): void => {
    live.add(ws);
    let viewer: TerminalViewer | null = null;
    let opening = false;
    let size: TerminalSize | null = null;
    const queued: string[] = [];
    let alive = true;
    const shut = (code: number, reason: string): void => {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    };
    const first = setTimeout(() => shut(TerminalClose.policy, 'Send a resize first.'), FIRST_MESSAGE_MS);
    const beat = setInterval(() => {
      if (!alive) return void ws.terminate();
      alive = false;
      ws.ping();
    }, HEARTBEAT_MS);
    ws.on('pong', () => (alive = true));

    const attach = (v: TerminalViewer): void => {
      viewer = v;
      if (v.history) ws.send(Buffer.from(v.history, 'utf8'), { binary: true });
      if (size) v.resize(size);
      for (const data of queued.splice(0)) v.write(data);
      v.output.on('data', (chunk: Buffer) => {
        ws.send(chunk, { binary: true }, () => {
          if (v.output.isPaused() && ws.bufferedAmount < HIGH_WATER / 4) v.output.resume();
        });
        if (ws.bufferedAmount > HIGH_WATER) v.output.pause();
      });
      // The client ended: final when the session's window is gone, else (viewer killed, container
      // restarting) the UI may reconnect.
      let once = false;
      const ended = (): void => {
        if (once) return;
        once = true;
        deps.terminals.resolve(target.sessionId).then(
          () => shut(TerminalClose.retry, 'The terminal dropped; reconnect.'),
          () => shut(TerminalClose.ended, "The session's window has closed."),
        );
      };
      v.output.on('end', ended).on('close', ended).on('error', ended);
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return shut(TerminalClose.policy, 'Send JSON text messages.');
      let json: unknown;
      try {
        json = JSON.parse(rawText(data));
      } catch {
        return shut(TerminalClose.policy, 'Not JSON.');
      }
      const parsed = TerminalClientMessage.safeParse(json);
      if (!parsed.success) return shut(TerminalClose.policy, 'Not a terminal message (input or resize).');
      const msg = parsed.data;
      if (msg.type === 'resize') size = { cols: msg.cols, rows: msg.rows };
      if (viewer) return msg.type === 'input' ? viewer.write(msg.data) : viewer.resize(size as TerminalSize);
      if (!opening) {
        if (msg.type !== 'resize') return shut(TerminalClose.policy, 'Send a resize first.');
        opening = true;
        clearTimeout(first);
        const initial = { cols: msg.cols, rows: msg.rows };
        size = null;
        deps.terminals.open(target, initial).then(
          (v) => (ws.readyState === ws.OPEN ? attach(v) : void v.close()),
          (e: unknown) => {
            deps.log.warn('terminal open failed', { sessionId: target.sessionId, error: e });
            shut(TerminalClose.internal, 'The terminal could not be opened.');
          },
        );
        return;
      }
      if (msg.type === 'input') {
        if (queued.length >= MAX_QUEUED)
          return shut(TerminalClose.policy, 'Too much input before the terminal opened.');
        queued.push(msg.data);
      }
    });
    ws.on('close', () => {
      live.delete(ws);
      clearTimeout(first);
      clearInterval(beat);
      void viewer?.close();
    });
    ws.on('error', () => undefined);
  };

  return {
    upgrade(req, socket, head) {
      socket.on('error', () => undefined);
      check(req).then(
        (v) => {
          if (!v.ok) return refuse(socket, v.status, v.message);
          wss.handleUpgrade(req, socket, head, (ws) => serve(ws, v.target));
        },
        (e: unknown) => {
          deps.log.warn('terminal upgrade failed', { error: e });
          refuse(socket, 500, 'The terminal could not be opened.');
        },
      );
    },
    close() {
      for (const ws of live) ws.close(TerminalClose.goingAway, 'Nexus is stopping.');
      wss.close();
    },
  };
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** Answers a refused upgrade with a plain HTTP error and drops the connection. */
function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Cache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
