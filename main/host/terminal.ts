import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { httpStatusOf, isNexusError } from '../../shared/errors';
import { TERMINAL_MAX_FRAME, TERMINAL_PROTOCOL, TerminalClose } from '../../shared/terminal';
import type { Logger } from '../core/log';
import { type LiveWindow, type SessionTerminals, openTerminalChannel } from '../core/terminal';
import { checkHostAndOrigin, type AllowList } from './guard';
import { splitUrl } from './routes';
import type { SessionAuth } from './session-auth';

/** Whether an upgrade's caller may open a terminal here, decided before the session is looked up. */
export type TerminalAdmission = { ok: true } | { ok: false; status: number; message: string };

export interface TerminalEndpointDeps {
  terminals: Pick<SessionTerminals, 'resolve' | 'open'>;
  /** The loopback UI's rules (localTerminalAdmission), or the phone's on the public origin. */
  admit(req: IncomingMessage): TerminalAdmission;
  /**
   * For a credential that can end while the terminal is open (a phone's session: revoked, signed
   * out, expired, the phone UI turned off): asked every `recheckMs`; false closes the terminal.
   */
  stillAdmitted?(req: IncomingMessage): boolean;
  recheckMs?: number;
  log: Logger;
}

const RECHECK_MS = 5_000;

/**
 * The loopback UI's terminal: Host and an Origin both our own, the UI cookie only (no Authorization
 * header of any kind). `allowed` is read at each upgrade: the host knows its port only once it listens.
 */
export function localTerminalAdmission(auth: SessionAuth, allowed: () => AllowList) {
  return (req: IncomingMessage): TerminalAdmission => {
    const guard = checkHostAndOrigin(req, allowed());
    if (!guard.ok) return { ok: false, status: 403, message: guard.reason };
    if (req.headers.origin === undefined) return { ok: false, status: 403, message: 'Origin required' };
    if (req.headers.authorization !== undefined || !auth.hasUiCookie(req))
      return { ok: false, status: 401, message: 'The terminal opens from the Nexus UI only (its session cookie).' };
    return { ok: true };
  };
}

export interface TerminalEndpoint {
  /** Takes over an HTTP upgrade request (any path: only the terminal's is accepted). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

const PATH = /^\/api\/terminal\/([^/]+)$/;
const HEARTBEAT_MS = 30_000;

type Verdict = { ok: true; target: LiveWindow } | { ok: false; status: number; message: string };

/**
 * The live terminal's WebSocket, `/api/terminal/<sessionId>`. It authenticates by itself (the HTTP
 * gate never sees an upgrade): no query string at all, the caller admitted by `admit` (on loopback:
 * the UI cookie, Host and Origin our own; on the public origin: the phone's session), the session
 * id a UUID of a session with a live window. Then it carries core's terminal channel: JSON text frames in, screen bytes out as binary frames.
 */
export function terminalEndpoint(deps: TerminalEndpointDeps): TerminalEndpoint {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: TERMINAL_MAX_FRAME,
    perMessageDeflate: false,
    handleProtocols: (offered) => (offered.has(TERMINAL_PROTOCOL) ? TERMINAL_PROTOCOL : false),
  });
  const live = new Set<WebSocket>();

  const check = async (req: IncomingMessage): Promise<Verdict> => {
    const raw = req.url ?? '/';
    const match = PATH.exec(splitUrl(raw).path);
    if (!match) return { ok: false, status: 404, message: 'No such route.' };
    if (raw.includes('?'))
      return { ok: false, status: 400, message: 'Credentials are not accepted in the query string.' };
    const admitted = deps.admit(req);
    if (!admitted.ok) return admitted;
    try {
      return { ok: true, target: await deps.terminals.resolve(match[1] ?? '') };
    } catch (e) {
      if (isNexusError(e)) return { ok: false, status: httpStatusOf[e.code], message: e.message };
      throw e;
    }
  };

  const serve = (ws: WebSocket, target: LiveWindow, req: IncomingMessage): void => {
    live.add(ws);
    const { stillAdmitted } = deps;
    const recheck = stillAdmitted
      ? setInterval(() => {
          if (!stillAdmitted(req)) ws.close(TerminalClose.policy, 'Signed out: sign in again to see the terminal.');
        }, deps.recheckMs ?? RECHECK_MS)
      : null;
    const channel = openTerminalChannel(deps, target, {
      send: (bytes, done) => ws.send(bytes, { binary: true }, done),
      buffered: () => ws.bufferedAmount,
      close: (code, reason) => {
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
      },
    });
    let alive = true;
    const beat = setInterval(() => {
      if (!alive) return void ws.terminate();
      alive = false;
      ws.ping();
    }, HEARTBEAT_MS);
    ws.on('pong', () => (alive = true));
    ws.on('message', (data: RawData, isBinary: boolean) =>
      isBinary ? ws.close(TerminalClose.policy, 'Send JSON text messages.') : channel.message(rawText(data)),
    );
    ws.on('close', () => {
      live.delete(ws);
      clearInterval(beat);
      if (recheck) clearInterval(recheck);
      channel.closed();
    });
    ws.on('error', () => undefined);
  };

  return {
    upgrade(req, socket, head) {
      socket.on('error', () => undefined);
      check(req).then(
        (v) => {
          if (!v.ok) return refuse(socket, v.status, v.message);
          wss.handleUpgrade(req, socket, head, (ws) => serve(ws, v.target, req));
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
