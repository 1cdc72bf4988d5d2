import { readFileSync } from 'node:fs';
import { NexusError } from '../../../shared/errors';
import { HAS_CREDENTIAL_TEST } from '../agent/credential';
import { FIRST_RUN_SCRIPT, firstRunPayload } from '../agent/first-run';
import type { SessionsConfig } from './config';
import type { SessionPaths } from './session-paths';
import { HOOK_EVENTS, HOOK_MARKER, hookHandler, relayScriptPath, relayStartPath, relayStartScript } from './hooks/hook-relay';
import { HelperOutcomes, type HelperReport } from './inbox/inbox-protocol';
import type { LaunchCommand } from './launch/launch';
import { launchMany, WORKTREE_FNS, type LaunchItem, type LaunchResult, type RunFileWrite } from './launch/launch-exec';
import type { ExecResult, WorkspaceInfo, WorkspaceRuntime } from '../workspaces/runtime';

/**
 * Everything sessions do inside a workspace container: git worktree, tmux window, launch script,
 * worker tools, inbox helper. Arguments reach `sh -c` as positional parameters ("$1"), never spliced
 * into the script, so no name or text is ever parsed by a shell.
 */

/** Host files of the worker-side tools, copied into each container once. */
export interface WorkerTools {
  hookScript: string;
  inboxSendScript: string;
  /** The resident hook relay (see hook-relay.ts). */
  relayScript: string;
}

/** Where the hook command publishes: a publish-only NATS user for nexus.hooks.<workspaceId>. */
export interface HookTarget {
  url: string;
  user?: string;
  pass?: string;
  token?: string;
  /** How long core holds a permission request for the operator (the hook waits a little longer). */
  permissionWaitMs?: number;
}

const NOTIFICATION_MATCHER = 'permission_prompt|idle_prompt|elicitation_dialog|agent_needs_input';

/** The workspace a command runs in (its container, read from the store). */
type Target = Pick<WorkspaceInfo, 'name' | 'containerId'>;
type ToolsTarget = Target & Pick<WorkspaceInfo, 'id'>;

export class SessionMachinery {
  constructor(
    private readonly runtime: Pick<WorkspaceRuntime, 'exec'>,
    private readonly config: SessionsConfig,
  ) {}

  private async sh(ws: Target, script: string, args: string[], stdin?: string | Buffer): Promise<ExecResult> {
    return this.runtime.exec(ws, ['sh', '-c', script, 'sh', ...args], stdin === undefined ? {} : { stdin });
  }

  private async mustSh(
    ws: Target,
    what: string,
    script: string,
    args: string[],
    stdin?: string | Buffer,
  ): Promise<string> {
    const r = await this.sh(ws, script, args, stdin);
    if (r.exitCode !== 0)
      throw new NexusError('internal', `${what} failed: ${(r.stderr || r.stdout).trim().slice(0, 500)}`);
    return r.stdout;
  }

  /** Installs the hook command, the inbox helper and user-level hooks; idempotent. */
  async installTools(
    ws: ToolsTarget,
    tools: WorkerTools,
    hookTarget: HookTarget | null,
    agent: { bypass?: boolean; autoMode?: boolean } = {},
  ): Promise<void> {
    const { toolsDir, stateDir } = this.config;
    const relay = {
      toolsDir,
      stateDir,
      natsFile: this.natsFile(),
      port: this.config.hookRelayPort,
      workspaceId: ws.id,
    };
    const files: [string, string, Buffer][] = [
      [`${toolsDir}/nexus-hook.cjs`, '755', readFileSync(tools.hookScript)],
      [`${toolsDir}/nexus-inbox-send.cjs`, '755', readFileSync(tools.inboxSendScript)],
      [relayScriptPath(toolsDir), '755', readFileSync(tools.relayScript)],
    ];
    if (hookTarget)
      files.push(
        [this.natsFile(), '600', Buffer.from(JSON.stringify(hookTarget), 'utf8')],
        [relayStartPath(toolsDir), '700', Buffer.from(relayStartScript(relay), 'utf8')],
      );
    const hooks: Record<string, unknown[]> = {};
    // The agent's own hook timeout outlasts Nexus's wait, so Nexus always steps aside first.
    const permissionTimeout = Math.ceil((hookTarget?.permissionWaitMs ?? 120_000) / 1000) + 15;
    for (const event of HOOK_EVENTS) {
      hooks[event] = [
        {
          ...(event === 'Notification' ? { matcher: NOTIFICATION_MATCHER } : {}),
          hooks: [
            hookHandler(event, relay, event === 'PermissionRequest' ? permissionTimeout : 10, hookTarget !== null),
          ],
        },
      ];
    }
    // The agent's first-run state with our hooks merged in (ours, marked by HOOK_MARKER, replaced; the
    // operator's kept): onboarding, trust, auto-update off, platform-tool rule (agent/first-run.ts).
    const seed = Buffer.from(
      JSON.stringify(
        firstRunPayload({ repoDir: this.config.repoDir, ...agent, hooks: { entries: hooks, marker: HOOK_MARKER } }),
      ),
      'utf8',
    );
    // One exec: the directories, every file (back to back on stdin, `dd` takes exactly each one's
    // length), the first-run state (its payload is the rest of stdin), then the relay, started or
    // told to re-read its credentials.
    const script = `mkdir -p -m 700 "$1" "$2" && chmod 700 "$1" "$2" && umask 077 || exit 1
      start=$3 seed=$4
      shift 4
      while [ $# -ge 3 ]; do
        f=$1 m=$2 len=$3
        shift 3
        dd bs="$len" count=1 iflag=fullblock of="$f.tmp" 2>/dev/null && chmod "$m" "$f.tmp" && mv "$f.tmp" "$f" || { echo "cannot write $f" >&2; exit 1; }
      done
      node -e "$seed" || { echo "preparing the agent's first-run state failed" >&2; exit 1; }
      [ -z "$start" ] || sh "$start" </dev/null || { echo "the hook relay did not start: $(tail -c 300 "$1/relay.log" 2>/dev/null)" >&2; exit 1; }`;
    await this.mustSh(
      ws,
      'install tools',
      script,
      [
        toolsDir,
        stateDir,
        hookTarget ? relayStartPath(toolsDir) : '',
        FIRST_RUN_SCRIPT,
        ...files.flatMap(([f, m, c]) => [f, m, String(c.length)]),
      ],
      Buffer.concat([...files.map(([, , c]) => c), seed]),
    );
  }

  /** Whether the real CLI can start here: its binary is on PATH and a credential is injected. */
  async agentReadiness(ws: Target): Promise<'ready' | 'no-cli' | 'no-credential'> {
    const r = await this.sh(ws, `command -v claude >/dev/null || exit 4; ${HAS_CREDENTIAL_TEST} || exit 3`, []);
    return r.exitCode === 4 ? 'no-cli' : r.exitCode === 3 ? 'no-credential' : 'ready';
  }

  /** Whether `path` is an executable file in the container. */
  async isExecutable(ws: Target, path: string): Promise<boolean> {
    return (await this.sh(ws, 'test -f "$1" && test -x "$1"', [path])).exitCode === 0;
  }

  private natsFile(): string {
    return `${this.config.toolsDir}/hook-nats.json`;
  }

  /** Removes exactly this session's worktree and branch; never another path or branch. */
  async removeWorktree(ws: Target, p: SessionPaths): Promise<void> {
    await this.sh(ws, `${WORKTREE_FNS}\nremove_worktree "$1" "$2"`, [this.config.repoDir, p.worktree]);
  }

  async worktreeExists(ws: Target, p: SessionPaths): Promise<boolean> {
    return (await this.sh(ws, 'test -d "$1"', [p.worktree])).exitCode === 0;
  }

  /** Launches one session; see launchMany. */
  async launch(
    ws: Target,
    name: string,
    p: SessionPaths,
    cmd: LaunchCommand,
    opts: { addWorktree: boolean; runFiles?: RunFileWrite | undefined },
  ): Promise<string> {
    const [result] = await this.launchMany(ws, [{ name, paths: p, cmd, ...opts }]);
    if (!result || 'error' in result) throw new NexusError('internal', result?.error ?? 'session launch failed');
    return result.windowId;
  }

  /** See launch-exec.ts: every item's run files, worktree, launch script and window in one exec. */
  launchMany(ws: Target, items: LaunchItem[]): Promise<LaunchResult[]> {
    return launchMany(this.runtime, this.config, this.launchLock(), ws, items);
  }

  private launchLock(): string {
    return `${this.config.toolsDir}/launch.lock`;
  }

  /** Waits (up to 2 minutes) until no launchMany holds the launch lock, e.g. one left running by a killed core. */
  async waitForLaunches(ws: Target): Promise<void> {
    await this.sh(ws, 'mkdir -p "$1" && flock -w 120 "$2" true', [this.config.toolsDir, this.launchLock()]);
  }

  /** Live windows of the tmux session: name -> window id. */
  async windows(ws: Target): Promise<Map<string, string>> {
    const r = await this.runtime.exec(ws, [
      'tmux',
      'list-windows',
      '-t',
      `=${this.config.tmuxSession}`,
      '-F',
      '#{window_id} #{window_name}',
    ]);
    const map = new Map<string, string>();
    if (r.exitCode !== 0) return map;
    // Space-separated (tmux turns a tab into `_`); session names never contain a space.
    for (const line of r.stdout.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) map.set(line.slice(space + 1), line.slice(0, space));
    }
    return map;
  }

  async killWindow(ws: Target, windowId: string): Promise<void> {
    await this.runtime.exec(ws, ['tmux', 'kill-window', '-t', windowId]);
  }

  async removeState(ws: Target, p: SessionPaths): Promise<void> {
    await this.sh(ws, 'rm -rf -- "$1"', [p.stateDir]);
  }

  async capturePane(ws: Target, windowId: string): Promise<string> {
    const r = await this.runtime.exec(ws, ['tmux', 'capture-pane', '-p', '-J', '-t', windowId]);
    if (r.exitCode !== 0) throw new NexusError('not_found', 'The session has no live window to show.');
    return r.stdout;
  }

  /** Runs the inbox helper with the text on stdin; returns its typed report. */
  async sendToInbox(ws: Target, sessionId: string, text: string): Promise<HelperReport> {
    const helper = `${this.config.toolsDir}/nexus-inbox-send.cjs`;
    const r = await this.runtime.exec(ws, ['node', helper, this.config.stateDir, sessionId], {
      stdin: text,
      timeoutMs: this.config.sendTimeoutMs + 5000,
      env: { NEXUS_INBOX_TIMEOUT_MS: String(this.config.sendTimeoutMs) },
    });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    try {
      const report = JSON.parse(line) as HelperReport;
      if (HelperOutcomes.includes(report.outcome)) return report;
    } catch {
      // fall through
    }
    throw new NexusError('internal', `The inbox helper failed (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
  }
}
