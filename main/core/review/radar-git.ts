import { randomBytes } from 'node:crypto';
import type { ConflictFile, ConflictHunk } from '../../../shared/contract/radar';
import { GIT_PRELUDE } from '../../../shared/git-scripts';
import { runScript, type ReviewExec, type ReviewTarget } from './container-git';

/**
 * The git side of the conflict radar, in the workspace's clone: a watch that answers when a branch
 * moves, `git merge-tree --write-tree` for pairs of branches (no worktree or index touched), and the
 * landing of a session's branch on the base.
 */

/** `check_pairs a b a b …`: for each pair, clean, or the conflicted paths and each one's merged text (with markers). */
const CHECK_PAIRS = `
emit() { printf '\\n%s %s\\n' "$mark" "$1"; }
check_pairs() {
  while [ $# -ge 2 ]; do
    a=$1; b=$2; shift 2
    git -c core.quotePath=false merge-tree --write-tree --name-only --no-messages "refs/heads/$a" "refs/heads/$b" > "$t/o" 2>/dev/null
    rc=$?
    emit "pair $a $b"
    if [ $rc -eq 0 ]; then echo clean; continue; fi
    if [ $rc -ne 1 ]; then echo unknown; continue; fi
    echo conflict
    tree=$(head -n1 "$t/o")
    tail -n +2 "$t/o" | awk 'NF && !seen[$0]++' | head -n "$maxfiles" > "$t/names"
    while IFS= read -r p; do
      emit "file $a $b"; printf '%s\\n' "$p"
      git cat-file blob "$tree:$p" 2>/dev/null | head -c "$maxbytes"
    done < "$t/names"
  done
}
`;

/**
 * Answers with the base branch and every branch head as soon as they differ from `known`, else after `secs`.
 * When they moved, it checks at once (same exec, one round trip less) each of the `live` branches that moved
 * against the other live ones and the base (every live one against the base when the base moved).
 *
 * It looks ten times a second for as long as a workspace has sessions, so a look that finds nothing starts no git
 * (docs/performance.md, "Review": a look was five processes): git writes a ref, HEAD or packed-refs by renaming a
 * file into its directory, which dates the directory, so a look compares the git dir and each directory under
 * refs/heads/ with a mark made just before the last read, and reads again only when one is not older than the mark
 * (a change in the mark's own clock tick counts as one: never missed, at worst read twice). A read is one git process:
 * the base branch comes from HEAD by the shell (git is asked only when HEAD names no branch), the branches by their
 * names under refs/heads/ (`lstrip=2`: what `:short` gives, but never shortened further when a tag shares a name).
 * The clock is read once a second; the look at the end of `secs` reads in any case.
 */
const WATCH = `${GIT_PRELUDE}
set -f
repo=$1; known=$2; secs=$3; mark=$4; maxfiles=$5; maxbytes=$6; shift 6
cd "$repo" 2>/dev/null || { echo "The workspace clone is gone." >&2; exit 3; }
gd=$(git rev-parse --absolute-git-dir) || exit 5
t=$(mktemp -d /tmp/nexus-radar-XXXXXX) || exit 5
trap 'rm -rf "$t"' EXIT
${CHECK_PAIRS}
head_of() { printf '%s\\n' "$1" | awk -v b="$2" 'NR > 1 && $2 == b { print $1 }'; }
nl='
'
heads() {
  h=; IFS= read -r h < "$gd/HEAD" 2>/dev/null || :
  case $h in
    'ref: refs/heads/'*) h=\${h#ref: refs/heads/} ;;
    'ref: '*) h=$(git symbolic-ref -q HEAD) || h= ;;
    *) h= ;;
  esac
  r=$(git for-each-ref --format='%(objectname) %(refname:lstrip=2)' refs/heads/)
  s=$r; [ -z "$h" ] || s=$h\${r:+$nl$r}
}
# The directories a ref can be renamed into (a ref name has no newline; no globbing: set -f).
dirs() { d=$(find "$gd/refs/heads" -type d 2>/dev/null) || d=; }
moved() {
  [ "$gd" -ot "$t/mark" ] || return 0
  o=$IFS; IFS=$nl
  for p in $d; do [ "$p" -ot "$t/mark" ] || { IFS=$o; return 0; }; done
  IFS=$o; return 1
}
read_all() { : > "$t/mark"; heads; }
read_all; dirs
end=$(( $(date +%s) + secs )); n=0
while [ "$s" = "$known" ]; do
  n=$((n + 1))
  if [ $((n % 10)) -eq 1 ] && [ "$(date +%s)" -ge "$end" ]; then read_all; break; fi
  sleep 0.1
  if moved; then read_all; dirs; fi
done
printf '%s\\n' "$s"
[ -n "$known" ] && [ "$s" != "$known" ] || exit 0
base=$(printf '%s\\n' "$s" | head -n1)
based=0
{ [ "$base" != "$(printf '%s\\n' "$known" | head -n1)" ] || [ "$(head_of "$s" "$base")" != "$(head_of "$known" "$base")" ]; } && based=1
pairs=""
for a in "$@"; do
  [ "$a" = "$base" ] && continue
  if [ "$(head_of "$s" "$a")" != "$(head_of "$known" "$a")" ]; then
    for b in "$@"; do [ "$b" = "$a" ] || [ "$b" = "$base" ] || pairs="$pairs $a $b"; done
    [ -n "$base" ] && pairs="$pairs $a $base"
  elif [ $based = 1 ] && [ -n "$base" ]; then pairs="$pairs $a $base"
  fi
done
emit checked
check_pairs $pairs
exit 0
`;

/** For each pair: clean, or the conflicted paths and each one's merged text (with conflict markers). */
const CHECK = `${GIT_PRELUDE}
repo=$1; mark=$2; maxfiles=$3; maxbytes=$4; shift 4
cd "$repo" 2>/dev/null || { echo "The workspace clone is gone." >&2; exit 3; }
t=$(mktemp -d /tmp/nexus-radar-XXXXXX) || exit 5
trap 'rm -rf "$t"' EXIT
${CHECK_PAIRS}
check_pairs "$@"
exit 0
`;

const LAND = `${GIT_PRELUDE}
repo=$1; br=$2
cd "$repo" 2>/dev/null || { echo "The workspace clone is gone." >&2; exit 3; }
base=$(git symbolic-ref -q --short HEAD) || { echo "The workspace clone has no branch checked out." >&2; exit 4; }
new=$(git rev-parse -q --verify "refs/heads/$br^{commit}") || { echo "The branch $br is gone." >&2; exit 3; }
old=$(git rev-parse HEAD) || exit 5
if git merge-base --is-ancestor "$new" "$old"; then echo "up_to_date $old $base"; exit 0; fi
git update-index -q --refresh >/dev/null
git diff-index --quiet HEAD -- || { echo "The workspace clone has uncommitted changes on $base; landing needs it clean." >&2; exit 4; }
if git merge-base --is-ancestor "$old" "$new"; then how=fast_forward; c=$new
else
  out=$(git -c core.quotePath=false merge-tree --write-tree --name-only --no-messages "$old" "$new"); rc=$?
  if [ $rc -eq 1 ]; then
    echo "Landing $br on $base would conflict in: $(printf '%s\\n' "$out" | tail -n +2 | awk 'NF && !seen[$0]++' | paste -sd, - | sed 's/,/, /g')." >&2
    exit 4
  fi
  [ $rc -eq 0 ] || { echo "git merge-tree failed." >&2; exit 5; }
  c=$(git commit-tree "$(printf '%s\\n' "$out" | head -n1)" -p "$old" -p "$new" -m "Merge branch '$br' into $base") || exit 5
  how=merge
fi
git read-tree -m -u "$old" "$c" || { echo "The clone's files could not be moved to the landed state." >&2; exit 5; }
git update-ref -m "nexus: land $br" "refs/heads/$base" "$c" "$old" || { echo "$base moved meanwhile; try again." >&2; exit 4; }
echo "$how $c $base"
`;

export interface BranchHeads {
  base: string | null;
  heads: Map<string, string>;
  /** The watch's raw answer: what the next watch waits to change. */
  raw: string;
  /** The checks the watch made of the live branches that moved (null: none made). */
  results: PairResult[] | null;
}

export type PairResult =
  | { a: string; b: string; state: 'clean' | 'unknown' }
  | { a: string; b: string; state: 'conflict'; files: ConflictFile[] };

/**
 * The conflicting regions of a merged file: each marker block's lines in either side's version.
 * Lines outside blocks count for both sides; a diff3 base section (`|||||||`) counts for neither.
 */
export function conflictHunks(merged: string): ConflictHunk[] {
  const hunks: ConflictHunk[] = [];
  let ours = 0;
  let theirs = 0;
  let part: 'out' | 'ours' | 'base' | 'theirs' = 'out';
  let h: ConflictHunk | null = null;
  for (const line of merged.split('\n')) {
    if (line.startsWith('<<<<<<< ') || line === '<<<<<<<') {
      h = { ours: { start: ours + 1, lines: 0 }, theirs: { start: theirs + 1, lines: 0 } };
      part = 'ours';
    } else if (part !== 'out' && (line.startsWith('||||||| ') || line === '|||||||')) part = 'base';
    else if (part !== 'out' && line === '=======') part = 'theirs';
    else if (part !== 'out' && h && (line.startsWith('>>>>>>> ') || line === '>>>>>>>')) {
      hunks.push(h);
      h = null;
      part = 'out';
    } else if (part === 'ours' && h) {
      ours++;
      h.ours.lines++;
    } else if (part === 'theirs' && h) {
      theirs++;
      h.theirs.lines++;
    } else if (part === 'out') {
      ours++;
      theirs++;
    }
  }
  return hunks;
}

/** The pair sections of a check's output (`<mark> pair a b` then its state, `<mark> file a b` per conflicted file). */
function parsePairs(out: string, mark: string): PairResult[] {
  const results: PairResult[] = [];
  let current: PairResult | null = null;
  for (const part of out.split(`\n${mark} `).slice(1)) {
    const nl = part.indexOf('\n');
    const head = part.slice(0, nl < 0 ? part.length : nl);
    const body = nl < 0 ? '' : part.slice(nl + 1);
    if (head.startsWith('pair ')) {
      const [, a = '', b = ''] = head.split(' ');
      const state = body.trim();
      current =
        state === 'conflict'
          ? { a, b, state: 'conflict', files: [] }
          : { a, b, state: state === 'clean' ? 'clean' : 'unknown' };
      results.push(current);
    } else if (head.startsWith('file ') && current?.state === 'conflict') {
      const pnl = body.indexOf('\n');
      const path = body.slice(0, pnl < 0 ? body.length : pnl);
      current.files.push({ path, hunks: conflictHunks(pnl < 0 ? '' : body.slice(pnl + 1)) });
    }
  }
  return results;
}

export class RadarGit {
  constructor(
    private readonly exec: ReviewExec,
    private readonly repoDir: string,
  ) {}

  /**
   * The base branch and branch heads, once they differ from `known` (or after `secs` seconds); when they moved,
   * also the checks of the moved `live` branches (null when nothing was checked).
   */
  async watch(ws: ReviewTarget, known: string, secs: number, live: string[]): Promise<BranchHeads> {
    const mark = `--nexus-${randomBytes(18).toString('hex')}--`;
    const raw = await runScript(
      this.exec,
      ws,
      WATCH,
      [this.repoDir, known, String(secs), mark, '50', String(1024 * 1024), ...live],
      'branch watch',
      { timeoutMs: (secs + 30) * 1000, maxOutput: 32 * 1024 * 1024 },
    );
    // The state is the script's `printf '%s\n' "$s"` exactly: what the next watch compares with its own reading.
    const cut = raw.indexOf(`\n${mark} checked\n`);
    const state = (cut < 0 ? raw : raw.slice(0, cut)).replace(/\n$/, '');
    const [first = '', ...rest] = state.split('\n');
    const heads = new Map<string, string>();
    for (const line of rest) {
      const sp = line.indexOf(' ');
      if (sp > 0) heads.set(line.slice(sp + 1), line.slice(0, sp));
    }
    const results = cut < 0 ? null : parsePairs(raw.slice(cut), mark);
    return { base: first === '' ? null : first, heads, raw: state, results };
  }

  /** `git merge-tree` for each pair of branch names; conflicting files with their hunks (a's side is ours). */
  async check(ws: ReviewTarget, pairs: [string, string][]): Promise<PairResult[]> {
    if (pairs.length === 0) return [];
    const mark = `--nexus-${randomBytes(18).toString('hex')}--`;
    const out = await runScript(
      this.exec,
      ws,
      CHECK,
      [this.repoDir, mark, '50', String(1024 * 1024), ...pairs.flat()],
      'conflict check',
      { maxOutput: 32 * 1024 * 1024, timeoutMs: 120_000 },
    );
    return parsePairs(out, mark);
  }

  /** Merges `branch` into the clone's checked-out base (fast-forward or a merge commit); refused on conflict. */
  async land(
    ws: ReviewTarget,
    branch: string,
  ): Promise<{ how: 'fast_forward' | 'merge' | 'up_to_date'; head: string; base: string }> {
    const out = await runScript(this.exec, ws, LAND, [this.repoDir, branch], 'land');
    const [how = '', head = '', base = ''] = out.trim().split(' ');
    return { how: how as 'fast_forward' | 'merge' | 'up_to_date', head, base };
  }
}
