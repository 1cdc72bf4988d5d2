import { randomBytes } from 'node:crypto';
import { readSections } from '../ship';
import { GIT_PRELUDE, runScript, type ReviewExec, type ReviewTarget } from './container-git';

/**
 * The git side of checkpoints, inside the workspace container. A checkpoint is the worktree's whole
 * state: `git add -A` into the session's own checkpoint index, `write-tree`, `commit-tree`, `update-ref`
 * on a hidden ref. The agent's index, its branch and its files are never touched by taking one.
 *
 * The checkpoint index (`nexus-checkpoint-index` in the worktree's git dir, so it goes with the worktree)
 * is kept from one checkpoint to the next: its stat data matches the files as the last checkpoint saw
 * them, so `git add -A` hashes only what changed since (docs/performance.md: the agent's own index is
 * stale for everything the agent changed and not staged, and a copy of it re-hashed all of that every
 * turn). The first checkpoint seeds it from the agent's index (or HEAD). One case would make it drift from
 * what a copy of the agent's index gives: a file it holds that a .gitignore now ignores (`add -A` keeps
 * tracked files), or one the agent force-added (`git add -f`, which `add -A` into this index never picks up). So
 * when its ignored entries are not exactly the agent's, it is seeded again; the agent's list is read when this index
 * holds ignored entries or the agent's index was written since the last checkpoint (a test builtin, no process).
 *
 * Each process costs milliseconds to start in a container, so the script starts git and nothing else
 * (docs/performance.md, "Review"): the git dir comes from the worktree's `.git` file and outputs go to shell
 * variables. What does not wait on another runs side by side: once `git add -A` is done, `write-tree`, the
 * ignored-entries check and the turn's stats (`diff-index --cached` against the parent, the same as the tree's
 * diff) read the checkpoint index at once, then `commit-tree` and `update-ref` run while the stats finish. The
 * two outputs made in the background go to scratch files beside the checkpoint index (a session takes one
 * checkpoint at a time).
 */
const TAKE = `${GIT_PRELUDE}
wt=$1; repo=$2; ref=$3; msg=$4; prev=$5
cd "$wt" 2>/dev/null || { echo "The session's worktree is gone." >&2; exit 3; }
# The agent's index is in the git dir the worktree's .git names; git is asked when that is not an absolute path.
gd=
if [ -d .git ]; then gd=$PWD/.git
elif [ -f .git ]; then IFS= read -r gd < .git || :; case $gd in 'gitdir: /'*) gd=\${gd#gitdir: } ;; *) gd= ;; esac; fi
if [ -n "$gd" ] && [ -d "$gd" ]; then idx=$gd/index
else idx=$(git rev-parse --path-format=absolute --git-path index) || exit 3; fi
keep=\${idx%/*}/nexus-checkpoint-index
fail() { wait; exit 5; }
head_commit() { git rev-parse -q --verify 'HEAD^{commit}' || :; }
# cp -p keeps the index's date: git reads again a file not older than its index (racy git), and a copy dated
# now would pass a file changed in the second the agent's index was written as unchanged.
seed() {
  rm -f "$keep" "$keep.lock"
  if [ -f "$idx" ]; then cp -p "$idx" "$keep" || exit 5
  else h=$(head_commit); [ -z "$h" ] || GIT_INDEX_FILE="$keep" git read-tree "$h" || exit 5; fi
}
add() { e=$(git add -A 2>&1 >/dev/null) || { printf '%s\\n' "$e" >&2; exit 5; }; }
export GIT_INDEX_FILE="$keep"
[ -f "$keep" ] && [ ! -e "$keep.lock" ] || seed
git add -A >/dev/null 2>&1 || { seed; add; }
parent=$prev
if [ -z "$parent" ]; then
  h=$(head_commit)
  if [ -n "$h" ]; then
    base=$(git -C "$repo" symbolic-ref -q HEAD) && parent=$(git merge-base "$h" "$base" 2>/dev/null) || parent=$h
  fi
fi
if [ -n "$parent" ]; then from=$parent; else from=$(git hash-object -t tree /dev/null); fi
# In the C locale's words, read at the end.
stats() { LC_ALL=C git diff-index --cached --shortstat "$from" > "$keep.stat" & d=$!; }
# The agent's index written since the last checkpoint (its .tree): it may hold a file it force-added (test builtin).
moved=; [ "$idx" -nt "$keep.tree" ] && moved=1
git write-tree > "$keep.tree" & w=$!
stats
# Quoted (not -z) names: a newline in one is escaped, so the lists compare as strings.
ign=$(git ls-files -c -i --exclude-standard) || fail
wait $w || fail
IFS= read -r tree < "$keep.tree" || fail
if [ -n "$ign$moved" ] && [ "$ign" != "$(GIT_INDEX_FILE="$idx" git ls-files -c -i --exclude-standard 2>/dev/null)" ]; then
  wait; seed; add; tree=$(git write-tree) || exit 5; stats
fi
c=$(git commit-tree "$tree" \${parent:+-p "$parent"} -m "$msg") || fail
# The seq comes from the rows in core: a ref with no row is one a core killed between the two made; it is replaced.
git update-ref "$ref" "$c" || fail
wait $d || exit 5
# " 3 files changed, 10 insertions(+), 2 deletions(-)", a part left out when it is 0; nothing when nothing changed.
IFS= read -r s < "$keep.stat" || s=
f=0; a=0; x=0; n=0
for word in $s; do case $word in file*) f=$n ;; insertion*) a=$n ;; deletion*) x=$n ;; esac; n=$word; done
printf '%s %s %d %d %d\\n' "$c" "\${parent:--}" "$f" "$a" "$x"
`;

/** Writes the target's files where they differ from the current state, removes what the target lacks. */
const RESTORE = `${GIT_PRELUDE}
wt=$1; target=$2; current=$3
cd "$wt" 2>/dev/null || { echo "The session's worktree is gone." >&2; exit 3; }
git cat-file -e "$target^{commit}" 2>/dev/null || { echo "The checkpoint's commit is gone from the clone." >&2; exit 3; }
t=$(mktemp -d /tmp/nexus-restore-XXXXXX) || exit 5
trap 'rm -rf "$t"' EXIT
export GIT_INDEX_FILE="$t/index"
git read-tree "$target" || exit 5
git diff-tree -r -z --no-renames --name-only --diff-filter=D "$current" "$target" > "$t/gone" || exit 5
git diff-tree -r -z --no-renames --name-only --diff-filter=AMT "$current" "$target" > "$t/write" || exit 5
xargs -0 -r rm -f -- < "$t/gone" || exit 5
xargs -0 -r -n1 dirname < "$t/gone" | sort -ru | while IFS= read -r d; do [ "$d" = . ] || rmdir -p -- "$d" 2>/dev/null; done
git checkout-index -f -z --stdin < "$t/write" || exit 5
tr -cd '\\0' < "$t/gone" | wc -c; tr -cd '\\0' < "$t/write" | wc -c
`;

/** What one checkpoint changed against its parent: numstat, names, and the patches cut per file at \`per\`. */
const DIFF = `${GIT_PRELUDE}
repo=$1; mark=$2; parent=$3; c=$4; per=$5; shift 5
cd "$repo" 2>/dev/null || exit 3
git cat-file -e "$c^{commit}" 2>/dev/null || { echo "The checkpoint's commit is gone from the clone." >&2; exit 3; }
[ -n "$parent" ] || parent=$(git hash-object -t tree /dev/null)
emit() { printf '\\n%s %s\\n' "$mark" "$1"; }
emit numstat; git diff-tree -r -M --numstat -z "$parent" "$c" || exit 5
emit names; git diff-tree -r -M --name-status -z "$parent" "$c" || exit 5
emit patch
git diff-tree -r -M -p "$parent" "$c" -- "$@" | awk -v per="$per" -v mark="$mark" '
  /^diff --git / { n = 0; cut = 0 }
  { if (cut) next; n += length($0) + 1; if (n > per) { print mark "-cut"; cut = 1; next } print }'
`;

/** Removes every checkpoint ref of a session from the clone. */
const REMOVE = `${GIT_PRELUDE}
repo=$1; prefix=$2
cd "$repo" 2>/dev/null || exit 0
git for-each-ref --format='delete %(refname)' "$prefix" | git update-ref --stdin
`;

export interface TakenCheckpoint {
  commit: string;
  parent: string | null;
  files: number;
  additions: number;
  deletions: number;
}

export const checkpointRef = (sessionId: string, seq: number): string => `refs/nexus/checkpoints/${sessionId}/${seq}`;

export class CheckpointGit {
  constructor(
    private readonly exec: ReviewExec,
    private readonly repoDir: string,
  ) {}

  /** Records the worktree's state on `ref`, its parent the previous checkpoint (or the branch's fork point). */
  async take(ws: ReviewTarget, worktree: string, ref: string, message: string, prev: string | null) {
    const out = await runScript(this.exec, ws, TAKE, [worktree, this.repoDir, ref, message, prev ?? ''], 'checkpoint');
    const [commit = '', parent = '-', files = '0', additions = '0', deletions = '0'] = out.trim().split(/\s+/);
    return {
      commit,
      parent: parent === '-' ? null : parent,
      files: Number(files),
      additions: Number(additions),
      deletions: Number(deletions),
    } satisfies TakenCheckpoint;
  }

  /** Makes the worktree's files those of `target`, given `current` (a checkpoint of them just taken). */
  async restore(ws: ReviewTarget, worktree: string, target: string, current: string) {
    const out = await runScript(this.exec, ws, RESTORE, [worktree, target, current], 'restore');
    const [removed = '0', written = '0'] = out.trim().split(/\s+/);
    return { removed: Number(removed), written: Number(written) };
  }

  async diff(ws: ReviewTarget, parent: string | null, commit: string, perFile: number, files: string[]) {
    const mark = `--nexus-${randomBytes(18).toString('hex')}--`;
    const out = await runScript(
      this.exec,
      ws,
      DIFF,
      [this.repoDir, mark, parent ?? '', commit, String(perFile), ...files],
      "checkpoint's diff",
      { maxOutput: 16 * 1024 * 1024 },
    );
    const s = readSections(out, mark);
    const text = (name: string): string => (s.get(name) ?? []).join('');
    return { numstat: text('numstat'), names: text('names'), patch: text('patch'), cutLine: `${mark}-cut\n` };
  }

  /** Drops a session's checkpoint refs (its session is gone). */
  async remove(ws: ReviewTarget, sessionId: string): Promise<void> {
    await runScript(this.exec, ws, REMOVE, [this.repoDir, `refs/nexus/checkpoints/${sessionId}`], 'checkpoint removal');
  }
}
