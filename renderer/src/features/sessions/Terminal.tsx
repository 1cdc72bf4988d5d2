import { FitAddon } from '@xterm/addon-fit';
import { Terminal as XTerm } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { PaneView } from './PaneView';
import { TerminalConnection, type ConnectionState, type TerminalTransport } from './terminal-transport';

/** Pasted text is sent in pieces well under the host's frame limit (JSON may escape a character to 6 bytes). */
const INPUT_CHUNK = 4096;

const stateText = (s: ConnectionState): string => {
  switch (s.kind) {
    case 'connecting':
      return 'Connecting…';
    case 'open':
      return 'Live';
    case 'waiting':
      return `Disconnected (${s.reason}); retrying in ${Math.ceil(s.retryInMs / 1000)} s`;
    case 'ended':
      return `Ended: ${s.reason}`;
  }
};

/**
 * The session's live terminal (xterm.js): every key goes to the agent's window, the size follows
 * the panel, the selection copies (Ctrl/Cmd+C with a selection, Ctrl+Shift+C). While it is not
 * connected the pane capture shows below it.
 */
export function SessionTerminal({ sessionId, transport }: { sessionId: string; transport: TerminalTransport }) {
  const box = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<ConnectionState>({ kind: 'connecting' });

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const term = new XTerm({ cursorBlink: true, scrollback: 5000, fontSize: 13, convertEol: false });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    const sendSize = (): void => {
      try {
        fit.fit();
      } catch {
        return; // not laid out yet
      }
      conn.send({ type: 'resize', cols: term.cols, rows: term.rows });
    };
    const conn = new TerminalConnection(transport, sessionId, {
      onState: setState,
      onOpen: () => {
        term.reset(); // the host sends the scrollback and the whole screen again
        sendSize();
      },
      onData: (bytes) => term.write(bytes),
    });
    const copy = (): boolean => {
      if (!term.hasSelection()) return false;
      void navigator.clipboard?.writeText(term.getSelection());
      term.clearSelection();
      return true;
    };
    term.attachCustomKeyEventHandler((e) => {
      const c = e.type === 'keydown' && e.key.toLowerCase() === 'c' && (e.ctrlKey || e.metaKey);
      return !(c && copy());
    });
    const input = term.onData((data) => {
      for (let i = 0; i < data.length; i += INPUT_CHUNK)
        conn.send({ type: 'input', data: data.slice(i, i + INPUT_CHUNK) });
    });
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(sendSize);
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
      input.dispose();
      conn.dispose();
      term.dispose();
    };
  }, [sessionId, transport]);

  return (
    <section className="terminal-view" aria-label="Terminal">
      <p className={`terminal-state ${state.kind}`} data-testid="terminal-state" role="status">
        {stateText(state)}
      </p>
      <div className="terminal" ref={box} data-testid="session-terminal" />
      {state.kind === 'open' ? null : <PaneView sessionId={sessionId} />}
    </section>
  );
}
