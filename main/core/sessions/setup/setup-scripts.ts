import { shellQuote } from '../../agents';

// The shell of per-session setup and run (session-setup.ts). Names and paths travel as positional parameters,
// file contents on stdin; the recipe's commands are quoted into scripts the session's own user runs.

/** A session's run window is `<session name>/run` (a session name has no `/`, so it is never a session's). */
export const RUN_WINDOW_SUFFIX = '/run';

/**
 * Launch-script lines before a new session's agent: the staged files into the worktree (0600), then the setup with its
 * output in the window and in `setup.log`, its exit code in `setup.rc` (written last, so a reader that sees it has
 * the whole log). A failed setup keeps the window (its output stays on screen) and never starts the agent.
 */
export function setupLines(stateDir: string, files: boolean, setup: string | null): string[] {
  const lines = [`st=${shellQuote(stateDir)}`];
  if (files)
    lines.push(
      'if [ -d "$st/files" ]; then',
      '  for p in "$st"/files/*.path; do',
      '    [ -f "$p" ] || continue',
      '    t=$(cat "$p")',
      '    mkdir -p "$(dirname "$t")" && (umask 077 && cp "${p%.path}" "$t") && chmod 600 "$t" || echo "Nexus: could not put $t in place"',
      '  done',
      '  rm -rf "$st/files"',
      'fi',
    );
  if (setup)
    lines.push(
      'if [ ! -f "$st/setup.ok" ]; then',
      `  printf 'Nexus: setup: %s\\n' ${shellQuote(setup)}`,
      '  rm -f "$st/setup.rc" "$st/setup.log"',
      `  { sh -c ${shellQuote(setup)} 2>&1 </dev/null; echo $? > "$st/setup.rc.tmp"; } | tee "$st/setup.log"`,
      '  mv "$st/setup.rc.tmp" "$st/setup.rc"',
      '  if [ "$(cat "$st/setup.rc")" = 0 ]; then : > "$st/setup.ok"; else',
      `    printf 'Nexus: the setup failed (exit %s); the agent was not started. Retry or skip it on the session page.\\n' "$(cat "$st/setup.rc")"`,
      '    exec sleep 2147483647',
      '  fi',
      'fi',
    );
  return lines;
}

/** `sh -c` with: n, n × (path, length), then each new session's state dir; the n contents on stdin, once per dir. */
export const stageScript = `umask 077
n=$1; shift
i=0
while [ $i -lt $n ]; do i=$((i + 1)); eval "p_$i=\\$1 l_$i=\\$2"; shift 2; done
for dir in "$@"; do
  mkdir -p "$dir/files" || exit 1
  i=0
  while [ $i -lt $n ]; do
    i=$((i + 1)); eval "p=\\$p_$i l=\\$l_$i"
    printf '%s' "$p" > "$dir/files/$i.path"
    if [ "$l" -gt 0 ]; then dd bs="$l" count=1 iflag=fullblock 2>/dev/null > "$dir/files/$i"; else : > "$dir/files/$i"; fi
    chmod 600 "$dir/files/$i"
  done
done`;

/** `sh -c` with the state dir: the setup's log to stderr as it grows, then its exit code on stdout. */
export const followScript = `st=$1; off=0
while :; do
  fin=; [ -f "$st/setup.rc" ] && fin=1
  if [ -f "$st/setup.log" ]; then
    size=$(wc -c < "$st/setup.log")
    if [ "$size" -gt "$off" ]; then tail -c +$((off + 1)) "$st/setup.log" | head -c $((size - off)) >&2; off=$size; fi
  fi
  [ -z "$fin" ] || break
  sleep 0.3
done
cat "$st/setup.rc"`;

/** `sh -c` with state dir, tmux session, window name, worktree; the run script on stdin. Prints the window id. */
export const runScript = `umask 077
cat > "$1/run.sh" || exit 1
old=$(tmux list-windows -t "=$2" -F '#{window_id} #{window_name}' | awk -v n="$3" '$2 == n { print $1 }')
[ -z "$old" ] || tmux kill-window -t "$old"
tmux new-window -d -P -F '#{window_id}' -t "$2:" -n "$3" -c "$4" "exec sh $1/run.sh"`;

/** The run window's script: in the worktree, the session's ports exported, the command; the window stays after it. */
export function runWindowScript(worktree: string, env: Record<string, string>, command: string): string {
  return [
    '#!/bin/sh',
    `cd ${shellQuote(worktree)} || exit 1`,
    ...Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    `printf 'Nexus: run: %s (PORT=%s)\\n' ${shellQuote(command)} "$PORT"`,
    `sh -c ${shellQuote(command)}`,
    `printf 'Nexus: the run command ended (exit %s)\\n' "$?"`,
    'exec sleep 2147483647',
    '',
  ].join('\n');
}
