import {
  terminalCloseIsFinal,
  terminalPath,
  TERMINAL_CSRF_PROTOCOL_PREFIX,
  TERMINAL_PROTOCOL,
  TerminalClose,
  type TerminalBridge,
  type TerminalClientMessage,
} from '../../../../shared/terminal';

declare global {
  interface Window {
    /** The Electron preload's terminal bridge (IPC); absent in a plain browser. */
    nexusTerminal?: TerminalBridge;
  }
}

export interface TerminalLink {
  send(message: TerminalClientMessage): void;
  close(): void;
}

export interface TerminalHandlers {
  onOpen(): void;
  onData(bytes: Uint8Array): void;
  onClose(code: number, reason: string): void;
}

/** How the renderer reaches a session's terminal: a WebSocket on the headless host, or IPC in Electron. */
export interface TerminalTransport {
  connect(sessionId: string, handlers: TerminalHandlers): TerminalLink;
}

/** Subprotocols the WebSocket offers: none on loopback; on the public origin the phone's (its CSRF token). */
let offered: string[] = [];

/** The phone, signed in: its terminal offers `nexus.terminal` and `nexus.csrf.<token>` (a WebSocket has no headers). */
export function offerPhoneCsrf(csrf: string): void {
  offered = [TERMINAL_PROTOCOL, `${TERMINAL_CSRF_PROTOCOL_PREFIX}${csrf}`];
}

/** The WebSocket on the page's own origin; the browser sends the UI cookie (or the phone's) and its Origin. */
export function webSocketTransport(): TerminalTransport {
  return {
    connect(sessionId, h) {
      const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
      const url = `${scheme}//${window.location.host}${terminalPath(sessionId)}`;
      const ws = offered.length > 0 ? new WebSocket(url, offered) : new WebSocket(url);
      ws.binaryType = 'arraybuffer';
      ws.onopen = () => h.onOpen();
      ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) =>
        h.onData(typeof e.data === 'string' ? new TextEncoder().encode(e.data) : new Uint8Array(e.data));
      ws.onclose = (e) => h.onClose(e.code, e.reason);
      return {
        send: (m) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m));
        },
        close: () => ws.close(1000),
      };
    },
  };
}

/** Electron: the same channel over IPC through the preload's bridge. */
export function ipcTransport(bridge: TerminalBridge): TerminalTransport {
  return {
    connect(sessionId, h) {
      let id: number | null = null;
      let closed = false;
      const off = bridge.subscribe((e) => {
        if (e.id !== id) return;
        if ('data' in e) return h.onData(e.data);
        off();
        h.onClose(e.closed.code, e.closed.reason);
      });
      bridge.open(sessionId).then(
        (opened) => {
          if (closed) return bridge.close(opened);
          id = opened;
          h.onOpen();
        },
        (e: unknown) => {
          off();
          h.onClose(TerminalClose.internal, e instanceof Error ? e.message : 'refused');
        },
      );
      return {
        send: (m) => {
          if (id !== null) bridge.send(id, JSON.stringify(m));
        },
        close: () => {
          closed = true;
          off();
          if (id !== null) bridge.close(id);
        },
      };
    },
  };
}

/** The transport for this window: IPC in Electron (app://), the WebSocket in a browser. */
export function terminalTransport(): TerminalTransport | null {
  if (window.nexusTerminal) return ipcTransport(window.nexusTerminal);
  return window.location.protocol === 'http:' || window.location.protocol === 'https:' ? webSocketTransport() : null;
}

export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'open' }
  | { kind: 'waiting'; retryInMs: number; reason: string }
  | { kind: 'ended'; reason: string };

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

/** Delay before reconnect attempt `n` (0-based): 0.5 s doubling, at most 10 s. */
export const backoffMs = (attempt: number): number => Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);

/**
 * Keeps one terminal link up: reconnects with backoff after a drop (sleep, network blip, host
 * restart), at once when the page becomes visible or the network comes back; stops after a close
 * that reconnecting cannot fix (normal, policy, too big, window ended).
 */
export class TerminalConnection {
  private link: TerminalLink | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly kick = (): void => {
    if (document.visibilityState === 'visible' && this.timer) this.connectNow();
  };

  constructor(
    private readonly transport: TerminalTransport,
    private readonly sessionId: string,
    private readonly events: {
      onState(state: ConnectionState): void;
      onOpen(): void;
      onData(bytes: Uint8Array): void;
    },
  ) {
    window.addEventListener('online', this.kick);
    document.addEventListener('visibilitychange', this.kick);
    this.connectNow();
  }

  send(message: TerminalClientMessage): void {
    this.link?.send(message);
  }

  dispose(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    window.removeEventListener('online', this.kick);
    document.removeEventListener('visibilitychange', this.kick);
    this.link?.close();
    this.link = null;
  }

  private connectNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.events.onState({ kind: 'connecting' });
    let opened = false;
    const link = this.transport.connect(this.sessionId, {
      onOpen: () => {
        opened = true;
        this.attempt = 0;
        this.events.onState({ kind: 'open' });
        this.events.onOpen();
      },
      onData: (bytes) => this.events.onData(bytes),
      onClose: (code, reason) => {
        if (this.link !== link || this.stopped) return;
        this.link = null;
        if (opened && terminalCloseIsFinal(code)) {
          this.events.onState({ kind: 'ended', reason: reason || `closed (${code})` });
          return;
        }
        const retryInMs = backoffMs(this.attempt++);
        this.events.onState({ kind: 'waiting', retryInMs, reason: reason || 'connection lost' });
        this.timer = setTimeout(() => this.connectNow(), retryInMs);
      },
    });
    this.link = link;
  }
}
