import { z } from 'zod';

/**
 * The live terminal's wire protocol (`/api/terminal/<sessionId>`, a WebSocket). Client → host:
 * JSON text frames, the first one a resize. Host → client: the terminal's bytes as binary frames.
 */
export const terminalPath = (sessionId: string): string => `/api/terminal/${encodeURIComponent(sessionId)}`;

/** Session ids are UUIDs (sessions.create); anything else is refused before the store is asked. */
export const TerminalSessionId = z.uuid();

/** Largest frame the host accepts; bigger ones close the socket with `tooBig`. */
/** The subprotocol a terminal client may offer (the phone does); the host echoes it back when offered. */
export const TERMINAL_PROTOCOL = 'nexus.terminal';
/**
 * A browser's WebSocket cannot set a header: the phone's terminal offers its CSRF token as a second
 * subprotocol, `nexus.csrf.<token>` (base64url is a valid protocol token).
 */
export const TERMINAL_CSRF_PROTOCOL_PREFIX = 'nexus.csrf.';

export const TERMINAL_MAX_FRAME = 64 * 1024;
/** Largest input text in one message; the client splits a longer paste. */
export const TERMINAL_MAX_INPUT = 16 * 1024;

export const TerminalSize = z.object({
  cols: z.number().int().min(2).max(500),
  rows: z.number().int().min(2).max(200),
});
export type TerminalSize = z.infer<typeof TerminalSize>;

export const TerminalClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input'), data: z.string().min(1).max(TERMINAL_MAX_INPUT) }).strict(),
  z.object({ type: z.literal('resize'), ...TerminalSize.shape }).strict(),
]);
export type TerminalClientMessage = z.infer<typeof TerminalClientMessage>;

/** Close codes the host uses; the client reconnects after any but the final ones below. */
export const TerminalClose = {
  normal: 1000,
  goingAway: 1001,
  /** A message that is not JSON, not in the schema, or not a resize first. */
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
  /** The viewer dropped while the session's window lives on: reconnect. */
  retry: 1013,
  /** The session's window is gone (the agent exited or the session was deleted). */
  ended: 4001,
} as const;

/** Close codes after which reconnecting cannot help. */
export const terminalCloseIsFinal = (code: number): boolean =>
  code === TerminalClose.normal ||
  code === TerminalClose.policy ||
  code === TerminalClose.tooBig ||
  code === TerminalClose.ended;

/** Electron: the terminal over IPC (the same messages and close codes as the WebSocket). */
export const TERMINAL_IPC = {
  open: 'nexus:terminal:open',
  send: 'nexus:terminal:send',
  close: 'nexus:terminal:close',
  event: 'nexus:terminal:event',
} as const;

export type TerminalIpcEvent =
  { id: number; data: Uint8Array } | { id: number; closed: { code: number; reason: string } };

/** What the Electron preload exposes as `window.nexusTerminal`. */
export interface TerminalBridge {
  /** Opens a channel to the session's terminal; rejects with the refusal (bad id, no live window). */
  open(sessionId: string): Promise<number>;
  send(id: number, text: string): void;
  close(id: number): void;
  subscribe(listener: (event: TerminalIpcEvent) => void): () => void;
}
