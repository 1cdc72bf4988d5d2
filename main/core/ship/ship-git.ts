import { randomBytes } from 'node:crypto';
import { NexusError } from '../../../shared/errors';
import { splitPatch } from './ship-parse';

/**
 * The git side of the session changes view, run inside the workspace container through the
 * runtime's one exec. Every argument reaches `sh -c` as a positional parameter, never spliced into
 * the script. The worktree's uncommitted files (untracked ones included) are read through a
 * throw-away index in /tmp, so the agent's own index is never touched.
 */

export interface ShipTarget {
  name: string;
  containerId: string | null;
}

/** What this module needs of the workspace runtime: its one exec. */
export interface ShipExec {
  exec(
    workspace: ShipTarget,
    argv: string[],
    opts?: { timeoutMs?: number; maxOutput?: number },
  ): Promise<{ exitCode: number; stdout: string; stderr: string }>;
}

/**
 * Sections of the script's output, each after a line `<mark> <name>` (the mark is random per call,
 * so no file content can fake one). Output is text as the exec decoded it; nothing counts bytes.
 */
export function readSections(out: string, mark: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  for (const part of out.split(`\n${mark} `).slice(1)) {
    const nl = part.indexOf('\n');
    const name = part.slice(0, nl < 0 ? part.length : nl);
    const list = sections.get(name) ?? [];
    list.push(nl < 0 ? '' : part.slice(nl + 1));
    sections.set(name, list);
  }
  return sections;
}

const PRELUDE = `
set -u
repo=$1; wt=$2; br=$3; t=$4; mark=$5; shift 5
export GIT_LITERAL_PATHSPECS=1 GIT_OPTIONAL_LOCKS=0
emit() { printf '\\n%s %s\\n' "$mark" "$1"; cat "$2"; }
cd "$wt" 2>/dev/null || { echo "The session's worktree is gone." >&2; exit 3; }
export GIT_INDEX_FILE="$t/index"
`;

/** Builds the throw-away index (tracked + untracked), then reports base, counts and numstat. */
const SCAN = `${PRELUDE}
mode=$1; logmax=$2
base=$(git -C "$repo" symbolic-ref --quiet --short HEAD) || { echo "The workspace clone has no branch checked out." >&2; exit 4; }
git rev-parse -q --verify "refs/heads/$br" >/dev/null || { echo "The session's branch $br is gone." >&2; exit 3; }
mb=$(git merge-base "$base" "$br") || { echo "The session's branch shares no history with $base." >&2; exit 4; }
umask 077; mkdir -p "$t" || exit 5
[ "$mode" = keep ] || trap 'rm -rf "$t"' EXIT
cp "$(git rev-parse --git-path index)" "$t/index" 2>/dev/null || git read-tree HEAD
git add -A >/dev/null 2>"$t/err" || { cat "$t/err" >&2; exit 5; }
printf '%s\\n%s\\n' "$base" "$mb" > "$t/o"; emit base "$t/o"
git rev-list --left-right --count "$base...$br" > "$t/o"; emit counts "$t/o"
if git rev-parse -q --verify "refs/remotes/origin/$br" >/dev/null
then git rev-list --count "refs/remotes/origin/$br..$br" > "$t/o"
else : > "$t/o"
fi
emit unpushed "$t/o"
if git diff --cached --quiet HEAD; then echo 0 > "$t/o"; else echo 1 > "$t/o"; fi; emit dirty "$t/o"
git diff --cached -M --numstat -z "$mb" > "$t/o"; emit numstat "$t/o"
if [ "$mode" = keep ]; then
  git diff --cached -M --name-status -z "$mb" > "$t/o"; emit names "$t/o"
  git log --format='%H%x1f%s%x1f%an%x1f%aI%x1e' -n "$logmax" "$base..$br" > "$t/o"; emit log "$t/o"
  printf '%s' "$mb" > "$t/mb"
fi
exit 0
`;

/**
 * One `git diff` for the page's files (new and old paths), each file's section cut by awk at `per`
 * bytes with a `<mark>-cut` line where it was cut (not a section line: those are `<mark> name`).
 */
const PATCHES = `${PRELUDE}
trap 'rm -rf "$t"' EXIT
per=$1; shift
[ -f "$t/mb" ] || { echo "The changes scan is gone; ask again." >&2; exit 5; }
git diff --cached -M "$(cat "$t/mb")" -- "$@" | awk -v per="$per" -v mark="$mark" '
  /^diff --git / { n = 0; cut = 0 }
  { if (cut) next; n += length($0) + 1; if (n > per) { print mark "-cut"; cut = 1; next } print }' > "$t/o"
emit patch "$t/o"
exit 0
`;

export interface Scan {
  base: string;
  mergeBase: string;
  ahead: number;
  behind: number;
  unpushed: number | null;
  uncommitted: boolean;
  numstat: string;
  names: string;
  log: string;
  /** The throw-away index kept for a PATCHES call (only when `keep`). */
  scratch: string | null;
}

export class ShipGit {
  constructor(
    private readonly exec: ShipExec,
    private readonly repoDir: string,
  ) {}

  private async run(
    ws: ShipTarget,
    script: string,
    args: [worktree: string, branch: string, scratch: string, ...rest: string[]],
    what: string,
    onMark?: (mark: string) => void,
  ): Promise<Map<string, string[]>> {
    const mark = `--nexus-${randomBytes(18).toString('hex')}--`;
    onMark?.(mark);
    const [worktree, branch, scratch, ...rest] = args;
    const argv = ['sh', '-c', script, 'sh', this.repoDir, worktree, branch, scratch, mark, ...rest];
    const r = await this.exec.exec(ws, argv, {
      timeoutMs: 120_000,
      maxOutput: 16 * 1024 * 1024,
    });
    if (r.exitCode === 3) throw new NexusError('not_found', r.stderr.trim() || 'The session worktree is gone.');
    if (r.exitCode === 4) throw new NexusError('conflict', r.stderr.trim());
    if (r.exitCode !== 0)
      throw new NexusError('unavailable', `Reading the ${what} failed: ${r.stderr.trim().slice(0, 300)}`);
    return readSections(r.stdout, mark);
  }

  /** Base, ahead/behind, unpushed, numstat; with `keep` also names and log, and the index for patches. */
  async scan(ws: ShipTarget, worktree: string, branch: string, opts: { keep: boolean; logMax: number }): Promise<Scan> {
    const scratch = `/tmp/nexus-changes-${randomBytes(6).toString('hex')}`;
    const s = await this.run(
      ws,
      SCAN,
      [worktree, branch, scratch, opts.keep ? 'keep' : 'summary', String(opts.logMax)],
      "session's changes",
    );
    const text = (name: string): string => (s.get(name) ?? []).join('');
    const [base = '', mergeBase = ''] = text('base').split('\n');
    const [behind = '0', ahead = '0'] = text('counts').trim().split(/\s+/);
    const unpushed = text('unpushed').trim();
    return {
      base,
      mergeBase,
      ahead: Number(ahead),
      behind: Number(behind),
      unpushed: unpushed === '' ? null : Number(unpushed),
      uncommitted: text('dirty').trim() === '1',
      numstat: text('numstat'),
      names: text('names'),
      log: text('log'),
      scratch: opts.keep ? scratch : null,
    };
  }

  /** Each file's diff from the kept scan (which this removes), cut at `perFile` bytes; by path. */
  async patches(
    ws: ShipTarget,
    worktree: string,
    scratch: string,
    files: { path: string; oldPath: string | null }[],
    perFile: number,
  ): Promise<Map<string, { diff: string; cut: boolean }>> {
    const paths = files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path]));
    let cutLine = '';
    const s = await this.run(ws, PATCHES, [worktree, '', scratch, String(perFile), ...paths], "session's diff", (m) => {
      cutLine = `${m}-cut\n`;
    });
    const out = new Map<string, { diff: string; cut: boolean }>();
    for (const section of splitPatch((s.get('patch') ?? []).join(''))) {
      const cut = section.diff.includes(cutLine);
      out.set(section.path, { diff: cut ? section.diff.replace(cutLine, '') : section.diff, cut });
    }
    return out;
  }

  /** Removes a kept scan that no patches call will use. */
  async discard(ws: ShipTarget, scratch: string): Promise<void> {
    await this.exec.exec(ws, ['rm', '-rf', '--', scratch]).catch(() => undefined);
  }
}
