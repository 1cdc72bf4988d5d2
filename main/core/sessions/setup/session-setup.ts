import type { SessionSetupView, SessionFile, SetupState } from '../../../../shared/contract/session-setup';
import { errorMessage, NexusError } from '../../../../shared/errors';
import { shellQuote } from '../../agents';
import type { EventBus } from '../../events';
import type { Logger } from '../../log';
import type { Redactor } from '../../redact';
import type { WorkspaceInfo, Recipe } from '../../workspaces';
import type { SessionsConfig } from '../config';
import type { ContainerExec } from '../container-sh';
import { sessionPaths } from '../session-paths';
import type { SessionRow } from '../session-store';
import { SessionPorts } from './session-ports';
import type { SessionSetupStore } from './session-setup-store';
import { followScript, RUN_WINDOW_SUFFIX, runScript, runWindowScript, setupLines, stageScript } from './setup-scripts';

/** What the session module's create and launch call (absent: sessions have no setup, files, ports). */
export interface SessionSetupHooks {
  /** PORT and NEXUS_PORTS for the session's agent (its block allocated on first use). */
  env(row: Pick<SessionRow, 'id' | 'workspace_id'>): Record<string, string>;
  /** Launch-script lines before the agent of a new session: the files put in, then the setup. */
  prelude(row: Pick<SessionRow, 'id' | 'name' | 'workspace_id'>): string[];
  /** Before new sessions' windows open: their files staged 0600 in their state dirs (contents on stdin). */
  stage(ws: WorkspaceInfo, rows: SessionRow[]): Promise<void>;
  /** After a new session's window opened: true when a setup runs, and `arm` is called once it succeeded. */
  follow(ws: WorkspaceInfo, row: SessionRow, arm: (at: string) => void): boolean;
}

export interface SessionSetupDeps {
  store: SessionSetupStore;
  ports: SessionPorts;
  runtime: ContainerExec & { info(ref: string): WorkspaceInfo };
  config: SessionsConfig;
  events: EventBus;
  log: Logger;
  redactor: Redactor;
  /** The recipe the session's workspace was built from (null: none). */
  recipeOf(workspaceId: string): Recipe | null;
  engineOf(workspaceId: string): string;
  /** A vault secret's value, for the files the operator names. */
  secret(secretId: string): Promise<string>;
  /** The session's row by id or `<workspace>/<name>`; throws not_found. */
  row(ref: string): SessionRow;
  /** Marks the session failed (setup failed) or running again (retry). */
  patch(id: string, patch: { status: 'error' | 'running'; reason: string | null; window_id?: string }): void;
}

const OUTPUT_KEEP = 16 * 1024;
const SETUP_TIMEOUT_MS = 30 * 60_000;

/**
 * Per-session setup and run from the repository's recipe (customizations.nexus): the setup runs in the session's
 * window before its agent, so the terminal shows it, and core follows its log and exit code to the session's state;
 * the operator's files go into each new worktree 0600; Run opens the run command in a window of its own; every
 * session has its own ports (docs/workspaces.md, "Setup and run per session").
 */
export class SessionSetup implements SessionSetupHooks {
  /** Run windows started by this process, to close with their session. */
  private readonly runWindows = new Map<string, { workspaceId: string; windowId: string }>();
  private readonly following = new Set<Promise<void>>();
  /** Sessions whose setup this process follows now. */
  private readonly followed = new Set<string>();
  /** Each new session's way to arm its startup watchdog, kept for a retried setup (this process only). */
  private readonly arms = new Map<string, (at: string) => void>();

  constructor(private readonly d: SessionSetupDeps) {}

  env(row: Pick<SessionRow, 'id' | 'workspace_id'>): Record<string, string> {
    return SessionPorts.env(this.d.ports.ensure(row.id, this.d.engineOf(row.workspace_id)));
  }

  prelude(row: Pick<SessionRow, 'id' | 'name' | 'workspace_id'>): string[] {
    const setup = this.d.recipeOf(row.workspace_id)?.nexus.setup ?? null;
    const files = this.d.store.files(row.workspace_id).length > 0;
    if (!setup && !files) return [];
    return setupLines(sessionPaths(this.d.config, row.id, row.name).stateDir, files, setup);
  }

  async stage(ws: WorkspaceInfo, rows: SessionRow[]): Promise<void> {
    const files = this.d.store.files(ws.id);
    if (files.length === 0 || rows.length === 0) return;
    const contents: { path: string; data: Buffer }[] = [];
    for (const f of files) {
      const value = f.secretId ? await this.d.secret(f.secretId) : (f.content ?? '');
      if (f.secretId) this.d.redactor.addSecret(value);
      contents.push({ path: f.path, data: Buffer.from(value, 'utf8') });
    }
    const args = rows.map((r) => sessionPaths(this.d.config, r.id, r.name).stateDir);
    const spec = contents.flatMap((c) => [c.path, String(c.data.length)]);
    const stdin = Buffer.concat(rows.flatMap(() => contents.map((c) => c.data)));
    const r = await this.d.runtime.exec(
      ws,
      ['sh', '-c', stageScript, 'sh', String(contents.length), ...spec, ...args],
      {
        stdin,
      },
    );
    if (r.exitCode !== 0) throw new NexusError('internal', `The session files could not be staged: ${r.stderr.trim()}`);
  }

  follow(ws: WorkspaceInfo, row: SessionRow, arm: (at: string) => void): boolean {
    if (!this.d.recipeOf(ws.id)?.nexus.setup) return false;
    this.arms.set(row.id, arm);
    this.save(row.id, { state: 'running', exitCode: null, output: '' });
    this.followed.add(row.id);
    const p = this.watch(ws, row, arm)
      .catch((e: unknown) => this.d.log.warn('following a session setup failed', { sessionId: row.id, error: e }))
      .finally(() => {
        this.following.delete(p);
        this.followed.delete(row.id);
      });
    this.following.add(p);
    return true;
  }

  /** A setup left `running` by an earlier core (its window goes on) is followed again when it is looked at. */
  view(ref: string): Promise<SessionSetupView> {
    const row = this.d.row(ref);
    const ws = this.d.runtime.info(row.workspace_id);
    if (this.d.store.setup(row.id)?.state === 'running' && !this.followed.has(row.id) && ws.running)
      this.follow(ws, row, this.arms.get(row.id) ?? (() => undefined));
    return this.viewOf(row);
  }

  /** After a failed setup: again in a fresh window (or skipped), then the agent, as a create would. */
  async retry(ref: string, skip: boolean): Promise<SessionSetupView> {
    const row = this.d.row(ref);
    const ws = this.d.runtime.info(row.workspace_id);
    const state = this.d.store.setup(row.id)?.state;
    if (state !== 'failed')
      throw new NexusError(
        'conflict',
        `Session ${row.name} has no failed setup to retry (its setup is ${state ?? 'none'}).`,
      );
    const p = sessionPaths(this.d.config, row.id, row.name);
    const script = `${skip ? ': > "$1/setup.ok"; ' : ''}rm -f "$1/setup.rc"; old=$(tmux list-windows -t "=$2" -F '#{window_id} #{window_name}' | awk -v n="$3" '$2 == n { print $1 }'); [ -z "$old" ] || tmux kill-window -t "$old"; tmux new-window -d -P -F '#{window_id}' -t "$2:" -n "$3" -c "$4" "exec sh $5"`;
    const r = await this.d.runtime.exec(ws, [
      'sh',
      '-c',
      script,
      'sh',
      p.stateDir,
      this.d.config.tmuxSession,
      row.name,
      p.worktree,
      shellQuote(p.launchScript),
    ]);
    const windowId = r.stdout.trim();
    if (r.exitCode !== 0 || !windowId.startsWith('@'))
      throw new NexusError('internal', `The session window could not be opened: ${r.stderr.trim()}`);
    this.d.patch(row.id, { status: 'running', reason: null, window_id: windowId });
    if (skip) {
      this.save(row.id, { state: 'skipped', exitCode: null, output: this.d.store.setup(row.id)?.output ?? '' });
      this.arms.get(row.id)?.(new Date().toISOString());
    } else this.follow(ws, row, this.arms.get(row.id) ?? (() => undefined));
    return this.viewOf(row);
  }

  /** The recipe's run command in the session's own `<name>/run` window (one at a time). */
  async run(ref: string): Promise<SessionSetupView> {
    const row = this.d.row(ref);
    const ws = this.d.runtime.info(row.workspace_id);
    if (!ws.running) throw new NexusError('conflict', `Workspace ${ws.name} is not running.`);
    const command = this.d.recipeOf(row.workspace_id)?.nexus.run;
    if (!command)
      throw new NexusError(
        'conflict',
        `Workspace ${ws.name}'s repository names no run command (customizations.nexus.run in devcontainer.json).`,
      );
    const p = sessionPaths(this.d.config, row.id, row.name);
    const script = Buffer.from(runWindowScript(p.worktree, this.env(row), command));
    const r = await this.d.runtime.exec(
      ws,
      [
        'sh',
        '-c',
        runScript,
        'sh',
        p.stateDir,
        this.d.config.tmuxSession,
        `${row.name}${RUN_WINDOW_SUFFIX}`,
        p.worktree,
      ],
      { stdin: script },
    );
    const windowId = r.stdout.trim();
    if (r.exitCode !== 0 || !windowId.startsWith('@'))
      throw new NexusError(
        'internal',
        `The run window could not be opened: ${(r.stderr || r.stdout).trim().slice(0, 300)}`,
      );
    this.runWindows.set(row.id, { workspaceId: ws.id, windowId });
    this.d.events.emit('sessions.setupChanged', {
      sessionId: row.id,
      state: this.d.store.setup(row.id)?.state ?? 'none',
    });
    return this.viewOf(row);
  }

  /** A deleted session's run window goes with it. */
  sessionGone(sessionId: string): void {
    this.arms.delete(sessionId);
    const w = this.runWindows.get(sessionId);
    if (!w) return;
    this.runWindows.delete(sessionId);
    const ws = this.d.runtime.info(w.workspaceId);
    if (ws.running) void this.d.runtime.exec(ws, ['tmux', 'kill-window', '-t', w.windowId]).catch(() => undefined);
  }

  async idle(): Promise<void> {
    await Promise.all([...this.following]);
  }

  private async viewOf(row: SessionRow): Promise<SessionSetupView> {
    const recipe = this.d.recipeOf(row.workspace_id);
    const setup = this.d.store.setup(row.id);
    const win = this.runWindows.get(row.id) ?? null;
    let output: string | null = null;
    if (win) {
      const ws = this.d.runtime.info(row.workspace_id);
      const r = ws.running
        ? await this.d.runtime
            .exec(ws, ['tmux', 'capture-pane', '-p', '-J', '-t', win.windowId, '-S', '-60'])
            .catch(() => null)
        : null;
      output = r && r.exitCode === 0 ? this.d.redactor.text(r.stdout.replace(/\n+$/, '\n')) : null;
    }
    return {
      sessionId: row.id,
      recipeFile: recipe?.file ?? null,
      setup: {
        command: recipe?.nexus.setup ?? null,
        state: setup?.state ?? 'none',
        exitCode: setup?.exitCode ?? null,
        output: setup?.output ?? '',
      },
      run: { command: recipe?.nexus.run ?? null, windowId: win?.windowId ?? null, output },
      ports: this.d.ports.of(row.id),
    };
  }

  /** Follows the setup's log (as progress) until its exit code is written; then the session's state follows it. */
  private async watch(ws: WorkspaceInfo, row: SessionRow, arm: (at: string) => void): Promise<void> {
    const p = sessionPaths(this.d.config, row.id, row.name);
    let output = '';
    const progress = (step: string, done = false, error?: string): void =>
      this.d.events.emit('progress', {
        id: `session:${row.id}:setup`,
        workspaceId: ws.id,
        label: `Setup of ${row.name}`,
        step,
        done,
        ...(error ? { error } : {}),
      });
    progress('Running the setup');
    let r;
    try {
      r = await this.d.runtime.exec(ws, ['sh', '-c', followScript, 'sh', p.stateDir], {
        timeoutMs: SETUP_TIMEOUT_MS,
        maxOutput: 64 * 1024,
        onStderr: (text) => {
          const clean = this.d.redactor.text(text);
          output = (output + clean).slice(-OUTPUT_KEEP);
          for (const line of clean.split('\n').filter((l) => l.trim())) progress(line.slice(0, 300));
        },
      });
    } catch (e) {
      this.save(row.id, { state: 'failed', exitCode: null, output: `${output}\n${errorMessage(e)}` });
      this.d.patch(row.id, { status: 'error', reason: `Setup did not finish: ${errorMessage(e)}` });
      progress('Failed', true, errorMessage(e));
      return;
    }
    const code = Number(r.stdout.trim());
    const exitCode = Number.isInteger(code) && r.stdout.trim() !== '' ? code : null;
    if (exitCode === 0) {
      this.save(row.id, { state: 'ok', exitCode, output });
      progress('Setup done; the agent starts', true);
      arm(new Date().toISOString());
      return;
    }
    this.save(row.id, { state: 'failed', exitCode, output });
    const last = output.trim().split('\n').slice(-2).join(' ').slice(0, 300);
    const reason = `Setup failed (exit ${exitCode ?? '?'}): ${last || 'no output'}. The agent was not started; retry or skip the setup on the session page.`;
    this.d.patch(row.id, { status: 'error', reason });
    progress('Setup failed', true, reason);
  }

  private save(sessionId: string, s: { state: SetupState; exitCode: number | null; output: string }): void {
    this.d.store.saveSetup(sessionId, s);
    this.d.events.emit('sessions.setupChanged', { sessionId, state: s.state });
  }
}

/** Checks the operator's file list (secrets are checked to exist when they are read, at each create). */
export function sessionFileRows(
  files: SessionFile[],
): { path: string; content: string | null; secretId: string | null }[] {
  const seen = new Set<string>();
  return files.map((f) => {
    if (seen.has(f.path)) throw new NexusError('bad_request', `The file ${f.path} is named twice.`);
    seen.add(f.path);
    return { path: f.path, content: f.content ?? null, secretId: f.secretId ?? null };
  });
}
