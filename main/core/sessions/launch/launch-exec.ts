import { NexusError } from '../../../../shared/errors';
import type { SessionsConfig } from '../config';
import { shellQuote, type LaunchCommand } from './launch';
import type { SessionPaths } from '../session-paths';
import type { WorkspaceInfo, WorkspaceRuntime } from '../../workspaces/runtime';

/**
 * Shell functions for the worktree: add (picking up a branch kept from a deleted session of the
 * same name), and on failure remove only this path and branch, then add once more; remove keeps
 * the branch.
 */
export const WORKTREE_FNS = `
  remove_worktree() {
    git -C "$1" worktree remove --force "$2" 2>/dev/null
    rm -rf -- "$2"
    git -C "$1" worktree prune
    return 0
  }
  cleanup_worktree() {
    remove_worktree "$1" "$2"
    git -C "$1" branch -D "$3" 2>/dev/null
    return 0
  }
  add_worktree() {
    mkdir -p "$(dirname "$2")"
    # Worktrees kept inside the clone are hidden from its status.
    if [ "$(dirname "$(dirname "$2")")" = "$1" ] && [ -d "$1/.git/info" -o -d "$1/.git" ]; then
      mkdir -p "$1/.git/info"
      line="/$(basename "$(dirname "$2")")/"
      grep -qxF "$line" "$1/.git/info/exclude" 2>/dev/null || echo "$line" >> "$1/.git/info/exclude"
    fi
    if git -C "$1" rev-parse -q --verify "refs/heads/$3" >/dev/null; then
      remove_worktree "$1" "$2"
      git -C "$1" worktree add -q "$2" "$3"
      return
    fi
    git -C "$1" worktree add -q -b "$3" "$2" HEAD 2>/dev/null && return 0
    cleanup_worktree "$1" "$2" "$3"
    git -C "$1" worktree add -q -b "$3" "$2" HEAD
  }`;

/**
 * A session's platform-run files, written 0600 into its state dir before its window opens: the NATS
 * password (null: none) and the `--mcp-config` JSON. Both travel on stdin; the password is never an argument.
 */
export interface RunFileWrite {
  passwordFile: string;
  password: string | null;
  mcpConfigFile: string;
  mcpConfig: string;
}

export interface LaunchItem {
  name: string;
  paths: SessionPaths;
  cmd: LaunchCommand;
  addWorktree: boolean;
  /** Absent: the session has no run files (no platform tools, no fleet, no external servers). */
  runFiles?: RunFileWrite | undefined;
}
export type LaunchResult = { name: string; windowId: string } | { name: string; error: string };

type Target = Pick<WorkspaceInfo, 'name' | 'containerId'>;

/**
 * Per item, in order: its run files, its worktree, its launch script, its window. `take` reads exactly
 * one item's bytes (dd reads its whole block before it writes), so a file that cannot be written,
 * or one skipped after a failure, never leaves bytes for the next.
 */
const SCRIPT = `${WORKTREE_FNS}
  take() { # file mode length
    [ "$3" -gt 0 ] || return 0
    dd bs="$3" count=1 iflag=fullblock 2>/dev/null | { umask 077 && cat > "$1.tmp" && chmod "$2" "$1.tmp" && mv "$1.tmp" "$1"; }
  }
  step() { # file mode length: take it, or once a step failed only drain its bytes
    if [ -z "$msg" ]; then take "$1" "$2" "$3" || msg="cannot write $1"
    elif [ "$3" -gt 0 ]; then dd bs="$3" count=1 iflag=fullblock of=/dev/null 2>/dev/null; fi
  }
  repo=$1 tmuxs=$2
  shift 2
  tmux has-session -t "=$tmuxs" 2>/dev/null || tmux new-session -d -s "$tmuxs" -n home
  while [ $# -ge 11 ]; do
    name=$1 wt=$2 branch=$3 file=$4 add=$5 len=$6 cmd=$7 pwf=$8 pwlen=$9 mcpf=\${10} mcplen=\${11}
    shift 11
    msg=
    dir=$(dirname "$file")
    (umask 077 && mkdir -p "$dir") && chmod 700 "$dir" || msg="cannot create $dir"
    step "$pwf" 600 "$pwlen"
    step "$mcpf" 600 "$mcplen"
    if [ -z "$msg" ] && [ "$add" = 1 ] && ! out=$(add_worktree "$repo" "$wt" "$branch" 2>&1); then msg="git worktree add: $out"; fi
    step "$file" 700 "$len"
    if [ -z "$msg" ]; then
      if id=$(tmux new-window -d -P -F '#{window_id}' -t "$tmuxs:" -n "$name" -c "$wt" "$cmd" 2>&1); then echo "ok $id"; continue; fi
      msg="tmux new-window: $id"
    fi
    printf 'err %s\\n' "$(printf '%s' "$msg" | tr '\\n' ' ')"
  done`;

/**
 * For each session, in order: write its run files, add its worktree when asked (retry-once, see
 * WORKTREE_FNS), write its launch script, open its tmux window. All in ONE docker exec (each costs
 * about 100 ms, more under load), one after the other inside it, so worktree adds never contend on
 * index.lock. One session's failure does not stop the next. Names and paths travel as positional
 * parameters, file contents on stdin: nothing is parsed by a shell. Runs under the launch lock: a core
 * killed mid-launch leaves this exec running, and the next core's converge waits for it
 * (waitForLaunches) before it reads windows and worktrees.
 */
export async function launchMany(
  runtime: Pick<WorkspaceRuntime, 'exec'>,
  config: SessionsConfig,
  lock: string,
  ws: Target,
  items: LaunchItem[],
): Promise<LaunchResult[]> {
  // Contents go on stdin back to back; `dd bs=<len> count=1 iflag=fullblock` takes exactly one each
  // (a plain `head -c` may read ahead and swallow the next). The environment is exported by the
  // launch script itself, so the window needs no `-e`.
  const chunks: Buffer[] = [];
  const args = items.flatMap(({ name, paths: p, cmd, addWorktree, runFiles: f }) => {
    const script = Buffer.from(
      [
        '#!/bin/sh',
        `cd ${shellQuote(p.worktree)} || exit 1`,
        ...Object.entries(cmd.env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
        ...cmd.preludeLines,
        cmd.shellLine,
        '',
      ].join('\n'),
      'utf8',
    );
    const password = Buffer.from(f?.password ?? '', 'utf8');
    const mcp = Buffer.from(f?.mcpConfig ?? '', 'utf8');
    chunks.push(password, mcp, script);
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
    ];
  });
  const r = await runtime.exec(
    ws,
    ['flock', '--close', lock, 'sh', '-c', SCRIPT, 'sh', config.repoDir, config.tmuxSession, ...args],
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
