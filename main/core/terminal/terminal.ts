import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { NexusError } from '../../../shared/errors';
import { TerminalSessionId, type TerminalSize } from '../../../shared/terminal';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import type { TtyProcess } from '../docker';
import type { WorkspaceRuntime } from '../workspaces';

/** Where a session's agent runs: its workspace container and tmux window. */
export interface LiveWindow {
  sessionId: string;
  name: string;
  containerId: string;
  windowId: string;
}

/** One viewer of a session's window: its own tmux client, size and scrollback. */
export interface TerminalViewer {
  readonly sessionId: string;
  /** The pane's scrollback above the screen (a pane capture, redacted) as terminal text: write it first. */
  readonly history: string;
  /** The viewer's screen bytes, as the tmux client draws them. */
  readonly output: Readable;
  write(data: string): void;
  /** Coalesced: at most one resize reaches the engine per RESIZE_INTERVAL_MS, the latest size wins. */
  resize(size: TerminalSize): void;
  /** Detaches: ends this viewer's tmux client and grouped session, never the agent's window. */
  close(): Promise<void>;
}

export interface SessionTerminalsDeps {
  /** sessions.liveWindow: the session's live window, or not_found / conflict. */
  liveWindow(sessionId: string): Promise<LiveWindow>;
  /** The workspaces' runtime: `exec` sets the viewer up, `attach` is its TTY. */
  runtime: Pick<WorkspaceRuntime, 'exec' | 'attach'>;
  /** The tmux session each workspace's panes live in (sessions' config). */
  config: { tmuxSession: string };
  redactor: Redactor;
  log: Logger;
}

export const RESIZE_INTERVAL_MS = 100;
const HISTORY_LINES = 2000;
const VIEWER_PREFIX = 'nexus-view-';

/**
 * Sets up a viewer: reaps viewers left by a Nexus that stopped without detaching (unattached, over a
 * minute old), makes a session grouped with the agents' one (so each viewer has its own current
 * window and size), with no prefix key and no status line (every key goes to the agent, the operator
 * cannot wander to another window), on the session's window; it ends itself if that window goes.
 * Prints the new session's id, then the window's scrollback above the screen.
 */
const SETUP = `group=$1 win=$2 view=$3 cols=$4 rows=$5 lines=$6
now=$(date +%s)
tmux list-sessions -F '#{session_id} #{session_name} #{session_attached} #{session_created}' 2>/dev/null |
  while read -r sid name attached created; do
    case "$name" in ${VIEWER_PREFIX}*) [ "$attached" = 0 ] && [ $((now - created)) -gt 60 ] && tmux kill-session -t "$sid";; esac
  done
id=$(tmux new-session -d -P -F '#{session_id}' -t "=$group" -s "$view" -x "$cols" -y "$rows") || exit 3
tmux set-option -t "$id" prefix None \\; set-option -t "$id" prefix2 None \\; set-option -t "$id" status off \\; \\
  select-window -t "$id:$win" && tmux set-hook -t "$id" session-window-changed "kill-session -t '$id'" ||
  { tmux kill-session -t "$id"; exit 4; }
echo "$id"
h=$(tmux display-message -p -t "$win" '#{history_size}')
if [ "\${h:-0}" -gt 0 ]; then tmux capture-pane -p -e -J -S "-$lines" -E -1 -t "$win"; fi
exit 0`;

/**
 * The live terminal of a session: each viewer attaches its own tmux client (`docker exec -it`,
 * `tmux attach-session`) to a session grouped with the agents' one, selected on the session's window.
 * Closing a viewer kills only that grouped session; the agent's window lives on.
 */
export class SessionTerminals {
  constructor(private readonly deps: SessionTerminalsDeps) {}

  /** Validates the id and finds the session's live window: bad_request, not_found or conflict. */
  async resolve(sessionId: string): Promise<LiveWindow> {
    if (!TerminalSessionId.safeParse(sessionId).success)
      throw new NexusError('bad_request', 'A terminal needs a session id (a UUID).');
    return this.deps.liveWindow(sessionId);
  }

  async open(target: LiveWindow, size: TerminalSize): Promise<TerminalViewer> {
    const { runtime, config, redactor } = this.deps;
    const view = `${VIEWER_PREFIX}${randomBytes(6).toString('hex')}`;
    const setup = await runtime.exec(target, [
      'sh',
      '-c',
      SETUP,
      'sh',
      config.tmuxSession,
      target.windowId,
      view,
      String(size.cols),
      String(size.rows),
      String(HISTORY_LINES),
    ]);
    const [first = '', ...rest] = setup.stdout.split('\n');
    const viewId = first.trim();
    if (setup.exitCode !== 0 || !/^\$\d+$/.test(viewId))
      throw new NexusError(
        'conflict',
        `The terminal of session ${target.name} could not be opened: ${setup.stderr.trim().slice(0, 300)}`,
      );
    const kill = async (): Promise<void> => {
      await runtime.exec(target, ['tmux', 'kill-session', '-t', viewId]).catch(() => undefined);
    };
    let tty: TtyProcess;
    try {
      tty = await runtime.attach(target, ['tmux', '-u', 'attach-session', '-t', viewId], {
        tty: true,
        size,
        env: ['TERM=xterm-256color', 'LANG=C.UTF-8'],
      });
    } catch (e) {
      await kill();
      throw e;
    }
    // The scrollback is a pane capture, so it is redacted like sessions.pane; the rows of newlines
    // after it push it above the screen the tmux client then draws.
    const scrollback = rest.join('\n').replace(/\n+$/, '');
    const history = scrollback
      ? `${redactor.text(scrollback).split('\n').join('\r\n')}${'\r\n'.repeat(size.rows)}`
      : '';
    return new Viewer(target.sessionId, history, tty, kill, this.deps.log);
  }
}

class Viewer implements TerminalViewer {
  readonly output: Readable;
  private pending: TerminalSize | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed: Promise<void> | null = null;

  constructor(
    readonly sessionId: string,
    readonly history: string,
    private readonly tty: TtyProcess,
    private readonly kill: () => Promise<void>,
    private readonly log: Logger,
  ) {
    this.output = tty.output;
  }

  write(data: string): void {
    if (!this.closed) this.tty.write(data);
  }

  resize(size: TerminalSize): void {
    if (this.closed) return;
    this.pending = size;
    if (!this.timer) this.flush();
  }

  private flush(): void {
    const size = this.pending;
    this.pending = null;
    if (!size || this.closed) {
      this.timer = null;
      return;
    }
    this.tty.resize(size).catch((e: unknown) => this.log.warn('terminal resize failed', { error: e }));
    this.timer = setTimeout(() => this.flush(), RESIZE_INTERVAL_MS);
  }

  close(): Promise<void> {
    if (!this.closed) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.closed = this.kill().finally(() => this.tty.close());
    }
    return this.closed;
  }
}
