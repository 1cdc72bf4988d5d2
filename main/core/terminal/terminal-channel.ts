import { TerminalClientMessage, TerminalClose, type TerminalSize } from '../../../shared/terminal';
import type { Logger } from '../log';
import type { LiveWindow, SessionTerminals, TerminalViewer } from './terminal';

/** What a transport (the host's WebSocket, Electron IPC) gives a terminal channel. */
export interface TerminalLink {
  /** Screen bytes to the client; `done` when they have left (for backpressure). */
  send(bytes: Buffer, done: () => void): void;
  /** Bytes handed to `send` and not yet gone. */
  buffered(): number;
  close(code: number, reason: string): void;
}

export interface TerminalChannel {
  /** One text message from the client (JSON, `shared/terminal.ts`). */
  message(text: string): void;
  /** The client went away: detach the viewer. */
  closed(): void;
}

/** The first message (a resize) must arrive within this time. */
const FIRST_MESSAGE_MS = 10_000;
/** Input held while the viewer opens; more closes the channel. */
const MAX_QUEUED = 256;
/** Output is paused while this much is waiting to be sent to a slow client. */
const HIGH_WATER = 1024 * 1024;

/**
 * The terminal protocol over any transport: messages parsed with zod (the first a resize, which
 * opens the viewer at that size; input before it is refused), the scrollback then the screen bytes
 * out with backpressure, and a close code the client can act on (`shared/terminal.ts`).
 */
export function openTerminalChannel(
  deps: { terminals: Pick<SessionTerminals, 'resolve' | 'open'>; log: Logger },
  target: LiveWindow,
  link: TerminalLink,
): TerminalChannel {
  let viewer: TerminalViewer | null = null;
  let opening = false;
  let gone = false;
  let size: TerminalSize | null = null;
  const queued: string[] = [];
  const shut = (code: number, reason: string): void => {
    if (gone) return;
    gone = true;
    clearTimeout(first);
    link.close(code, reason);
    void viewer?.close();
  };
  const first = setTimeout(() => shut(TerminalClose.policy, 'Send a resize first.'), FIRST_MESSAGE_MS);

  const attach = (v: TerminalViewer): void => {
    viewer = v;
    const done = (): void => {
      if (v.output.isPaused() && link.buffered() < HIGH_WATER / 4) v.output.resume();
    };
    if (v.history) link.send(Buffer.from(v.history, 'utf8'), done);
    if (size) v.resize(size);
    for (const data of queued.splice(0)) v.write(data);
    v.output.on('data', (chunk: Buffer) => {
      link.send(chunk, done);
      if (link.buffered() > HIGH_WATER) v.output.pause();
    });
    // The client ended: final when the session's window is gone, else (viewer killed, container
    // restarting) the client may reconnect.
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

  return {
    message(text) {
      if (gone) return;
      let json: unknown;
      try {
        json = JSON.parse(text);
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
          (v) => (gone ? void v.close() : attach(v)),
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
    },
    closed() {
      gone = true;
      clearTimeout(first);
      void viewer?.close();
    },
  };
}
