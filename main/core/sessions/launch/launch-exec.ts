import { NexusError } from '../../../../shared/errors';
import type { SessionsConfig } from '../config';
import { launchScript, shellQuote, type LaunchCommand } from '../../agents';
import { sh, type ContainerExec, type ExecTarget } from '../container-sh';
import type { SessionPaths } from '../session-paths';
import { WORKTREE_FNS } from '../worktrees';
import { residentStartPath } from './resident-mcp';

/**
 * A session's platform-run files, written 0600 into its state dir before its window opens: the NATS
 * password (null: none) and the `--mcp-config` JSON. Both travel on stdin; the password is never an argument.
 */
export interface RunFileWrite {
  passwordFile: string;
  password: string | null;
  mcpConfigFile: string;
  mcpConfig: string;
  /** The session's run file for the resident nexus-mcp (launch/resident-mcp.ts), when it uses that one. */
  residentRunFile?: string | undefined;
  residentRun?: string | undefined;
  /** The session's model-gateway credential (gateway/), read by the agent's key helper or launch script. */
  gatewayKeyFile?: string | undefined;
  gatewayKey?: string | undefined;
}

export interface LaunchItem {
  name: string;
  paths: SessionPaths;
  cmd: LaunchCommand;
  addWorktree: boolean;
  /** Absent: the session has no run files (no platform tools, no delegation, no external servers). */
  runFiles?: RunFileWrite | undefined;
}
export type LaunchResult = { name: string; windowId: string } | { name: string; error: string };

/**
 * Three passes. First, per item, in order: its worktree's add started in the background (adds of different sessions may
 * run at once, see worktrees.ts; each one's output and status go to its own state dir), then its run files and launch
 * script, read off stdin while git checks out; beside them, the resident nexus-mcp's check and the tmux session's.
 * Then, once every add (and both checks) is done, each add's status. Last, every window opens in ONE tmux command
 * (`new-window … ; new-window …`): the server forks the agents back to back, before the first ones take the CPU that a
 * `tmux` client per window would wait for (docs/performance.md, "Nexus's part of ten starts"). tmux stops a command
 * list at its first failure, so an item the list gave no window is opened alone, which opens it or says why not. No
 * argument ends in `;` (tmux's separator): session names cannot, paths end in them, commands in a path. `take` reads
 * exactly one item's bytes (dd reads its whole block before it writes), so a file that cannot be written, or one
 * skipped after a failure, never leaves bytes for the next. Each item's name, worktree, command, state dir, failure and
 * window are kept in numbered variables between the passes (`eval` only names them: their values are never parsed).
 */
const SCRIPT = `${WORKTREE_FNS}
  take() { # file length (under umask 077: the file is 0600; it is run with sh, so needs no x bit)
    [ "$2" -gt 0 ] || return 0
    dd bs="$2" count=1 iflag=fullblock of="$1.tmp" 2>/dev/null && mv "$1.tmp" "$1"
  }
  step() { # file length: take it, or once a step failed only drain its bytes
    if [ -z "$msg" ]; then take "$1" "$2" || msg="cannot write $1"
    elif [ "$2" -gt 0 ]; then dd bs="$2" count=1 iflag=fullblock of=/dev/null 2>/dev/null; fi
  }
  repo=$1 tmuxs=$2 mcpstart=$3
  shift 3
  # Beside the files and worktrees (the first pass's wait waits for them too): the resident nexus-mcp's loop, started
  # again if it is gone (resident-mcp.ts), and the agents' tmux session, both there before any window opens.
  [ ! -f "$mcpstart" ] || sh "$mcpstart" </dev/null >/dev/null 2>&1 &
  { tmux has-session -t "=$tmuxs" 2>/dev/null || tmux new-session -d -s "$tmuxs" -n home; } </dev/null &
  n=0
  while [ $# -ge 15 ]; do
    name=$1 wt=$2 branch=$3 file=$4 add=$5 len=$6 cmd=$7 pwf=$8 pwlen=$9 mcpf=\${10} mcplen=\${11} runf=\${12} runlen=\${13}
    gwf=\${14} gwlen=\${15}
    shift 15
    msg=
    dir=\${file%/*}
    # The run files private (0600, their dir 0700); the worktree and the windows get the exec's usual 022.
    umask 077
    mkdir -p -m 700 "$dir" || msg="cannot create $dir"
    umask 022
    [ -z "$msg" ] || add=0
    # The add first: git checks out while the files are written.
    if [ "$add" = 1 ]; then
      : >"$dir/worktree.rc"
      hide_worktree "$repo" "$wt"
      { add_worktree "$repo" "$wt" "$branch" >"$dir/worktree.out" 2>&1; echo $? >"$dir/worktree.rc"; } </dev/null &
    fi
    umask 077
    step "$pwf" "$pwlen"
    step "$mcpf" "$mcplen"
    step "$runf" "$runlen"
    step "$gwf" "$gwlen"
    step "$file" "$len"
    umask 022
    n=$((n + 1))
    eval "name_$n=\\$name wt_$n=\\$wt cmd_$n=\\$cmd msg_$n=\\$msg dir_$n=\\$dir add_$n=\\$add id_$n="
  done
  wait
  i=0
  while [ $i -lt $n ]; do
    i=$((i + 1))
    eval "dir=\\$dir_$i add=\\$add_$i msg=\\$msg_$i"
    [ "$add" = 1 ] && [ -z "$msg" ] || continue
    rc=
    { read -r rc <"$dir/worktree.rc"; } 2>/dev/null
    if [ "$rc" != 0 ]; then
      out="git worktree add: $(cat "$dir/worktree.out" 2>/dev/null)"
      eval "msg_$i=\\$out"
    fi
  done
  set --
  i=0
  while [ $i -lt $n ]; do
    i=$((i + 1))
    eval "name=\\$name_$i wt=\\$wt_$i cmd=\\$cmd_$i msg=\\$msg_$i"
    [ -z "$msg" ] || continue
    [ $# -eq 0 ] || set -- "$@" ';'
    set -- "$@" new-window -d -P -F "$i #{window_id}" -t "$tmuxs:" -n "$name" -c "$wt" "$cmd"
  done
  wins=
  [ $# -eq 0 ] || wins=$(tmux "$@" 2>/dev/null)
  while read -r k id; do
    case "$k" in '' | *[!0-9]*) continue ;; esac
    case "$id" in @*[!0-9]* | @ | [!@]* | '') continue ;; esac
    eval "id_$k=\\$id"
  done <<EOF
$wins
EOF
  i=0
  while [ $i -lt $n ]; do
    i=$((i + 1))
    eval "name=\\$name_$i wt=\\$wt_$i cmd=\\$cmd_$i msg=\\$msg_$i id=\\$id_$i"
    if [ -z "$msg" ]; then
      if [ -n "$id" ] || id=$(tmux new-window -d -P -F '#{window_id}' -t "$tmuxs:" -n "$name" -c "$wt" "$cmd" 2>&1); then
        echo "ok $id"
        continue
      fi
      msg="tmux new-window: $id"
    fi
    printf 'err %s\\n' "$(printf '%s' "$msg" | tr '\\n' ' ')"
  done
  # Once the windows are open: the adds' status files, in one rm.
  set --
  i=0
  while [ $i -lt $n ]; do
    i=$((i + 1))
    eval "dir=\\$dir_$i add=\\$add_$i"
    [ "$add" = 1 ] && set -- "$@" "$dir/worktree.out" "$dir/worktree.rc"
  done
  [ $# -eq 0 ] || rm -f "$@"`;

/**
 * For each session: write its run files and launch script, add its worktree when asked (retry-once, see
 * WORKTREE_FNS; the adds of a batch at once, each touching only its own ref, admin dir and index); then
 * open the windows. All in ONE docker exec (each costs about 100 ms, more under load). One session's
 * failure does not stop the next. Names and paths travel as positional parameters, file contents on
 * stdin: nothing is parsed by a shell. Runs under the launch lock: a core
 * killed mid-launch leaves this exec running, and the next core's converge waits for it
 * (waitForLaunches) before it reads windows and worktrees.
 */
export async function launchMany(
  runtime: ContainerExec,
  config: SessionsConfig,
  ws: ExecTarget,
  items: LaunchItem[],
): Promise<LaunchResult[]> {
  // Contents go on stdin back to back; `dd bs=<len> count=1 iflag=fullblock` takes exactly one each
  // (a plain `head -c` may read ahead and swallow the next). The environment is exported by the
  // launch script itself, so the window needs no `-e`.
  const chunks: Buffer[] = [];
  // Only when a session of this batch uses it.
  const residentStart = items.some((i) => i.runFiles?.residentRun) ? residentStartPath(config.toolsDir) : '';
  const args = items.flatMap(({ name, paths: p, cmd, addWorktree, runFiles: f }) => {
    const script = Buffer.from(launchScript(p.worktree, cmd), 'utf8');
    const password = Buffer.from(f?.password ?? '', 'utf8');
    const mcp = Buffer.from(f?.mcpConfig ?? '', 'utf8');
    const run = Buffer.from(f?.residentRun ?? '', 'utf8');
    const gateway = Buffer.from(f?.gatewayKey ?? '', 'utf8');
    chunks.push(password, mcp, run, gateway, script);
    return [
      name,
      p.worktree,
      p.branch,
      p.launchScript,
      addWorktree ? '1' : '0',
      String(script.length),
      `exec sh ${shellQuote(p.launchScript)}`,
      f?.passwordFile ?? '',
      String(password.length),
      f?.mcpConfigFile ?? '',
      String(mcp.length),
      f?.residentRunFile ?? '',
      String(run.length),
      f?.gatewayKeyFile ?? '',
      String(gateway.length),
    ];
  });
  const r = await runtime.exec(
    ws,
    [
      'flock',
      '--close',
      launchLock(config),
      'sh',
      '-c',
      SCRIPT,
      'sh',
      config.repoDir,
      config.tmuxSession,
      residentStart,
      ...args,
    ],
    { stdin: Buffer.concat(chunks), timeoutMs: 60_000 + 10_000 * items.length },
  );
  const lines = r.stdout.split('\n').filter(Boolean);
  if (lines.length !== items.length)
    throw new NexusError('internal', `session launch failed: ${(r.stderr || r.stdout).trim().slice(0, 500)}`);
  return lines.map((line, i) => {
    const name = items[i]?.name ?? '';
    return line.startsWith('ok ')
      ? { name, windowId: line.slice(3).trim() }
      : { name, error: line.slice(4).trim().slice(0, 500) };
  });
}

/** Launches one session (see launchMany); its window id. */
export async function launchOne(
  runtime: ContainerExec,
  config: SessionsConfig,
  ws: ExecTarget,
  item: LaunchItem,
): Promise<string> {
  const [result] = await launchMany(runtime, config, ws, [item]);
  if (!result || 'error' in result) throw new NexusError('internal', result?.error ?? 'session launch failed');
  return result.windowId;
}

const launchLock = (config: Pick<SessionsConfig, 'toolsDir'>): string => `${config.toolsDir}/launch.lock`;

/** Waits (up to 2 minutes) until no launchMany holds the launch lock, e.g. one left running by a killed core. */
export async function waitForLaunches(
  runtime: ContainerExec,
  config: Pick<SessionsConfig, 'toolsDir'>,
  ws: ExecTarget,
): Promise<void> {
  await sh(runtime, ws, 'mkdir -p "$1" && flock -w 120 "$2" true', [config.toolsDir, launchLock(config)]);
}
