/**
 * Git scripts that both core (through the runtime's exec) and a workspace's resident hook relay (over NATS, without a
 * process started by docker: resources/worker/nexus-hook-relay/checkpoints.ts) run in a workspace container. Each runs as
 * `sh -c <script> sh <args…>`: every argument a positional parameter, never spliced into the script. The relay runs
 * only the scripts named here, and only the text its own bundle holds (the request names the script's SHA-256, so a
 * relay from another build says so and core takes its exec).
 */

/** The shell's common start: strict variables, no optional locks, Nexus as committer of what it writes. */
export const GIT_PRELUDE = `set -u
export GIT_OPTIONAL_LOCKS=0 GIT_LITERAL_PATHSPECS=1
export GIT_AUTHOR_NAME=Nexus GIT_AUTHOR_EMAIL=nexus@localhost GIT_COMMITTER_NAME=Nexus GIT_COMMITTER_EMAIL=nexus@localhost
`;

/**
 * A checkpoint (main/core/review/checkpoint-git.ts), inside the workspace container. A checkpoint is the worktree's whole
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
export const CHECKPOINT_TAKE = `${GIT_PRELUDE}
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
