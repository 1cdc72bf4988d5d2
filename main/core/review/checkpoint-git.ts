import { createHash, randomBytes } from 'node:crypto';
import { NexusError } from '../../../shared/errors';
import { CHECKPOINT_TAKE, GIT_PRELUDE } from '../../../shared/git-scripts';
import { RELAY_TIMED_OUT, RelayCheckpointAnswer, type RelayCheckpoint } from '../../../shared/relay-checkpoint';
import {
  SCRIPT_TIMEOUT_MS,
  runScript,
  scriptOutput,
  type ReviewExec,
  type ReviewTarget,
  type ScriptRun,
} from './container-git';
import { safeJson } from '../safe-json';
import { readSections } from '../ship';
import type { CheckpointRelay } from './review-deps';

/**
 * The git side of checkpoints, inside the workspace container: taking one (shared/git-scripts.ts CHECKPOINT_TAKE, run by
 * the workspace's hook relay when it answers, else through the runtime's exec), restoring one, its diff, and the refs'
 * removal.
 */

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

const WHAT = 'checkpoint';
/** Names the script text core means; a relay whose bundle holds another answers `stale` (shared/relay-checkpoint.ts). */
const TAKE_SHA256 = createHash('sha256').update(CHECKPOINT_TAKE).digest('hex');

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
    private readonly relay?: CheckpointRelay,
  ) {}

  /**
   * Records the worktree's state on `ref`, its parent the previous checkpoint (or the branch's fork point): by the
   * workspace's hook relay when one answers (no `docker exec`), else through the runtime's exec.
   */
  async take(ws: ReviewTarget & { id?: string }, worktree: string, ref: string, message: string, prev: string | null) {
    const relayed = ws.id ? await this.takeByRelay(ws.id, worktree, ref, message, prev) : null;
    const out =
      relayed === null
        ? await runScript(this.exec, ws, CHECKPOINT_TAKE, [worktree, this.repoDir, ref, message, prev ?? ''], WHAT)
        : scriptOutput(relayed, WHAT);
    const [commit = '', parent = '-', files = '0', additions = '0', deletions = '0'] = out.trim().split(/\s+/);
    const taken: TakenCheckpoint = {
      commit,
      parent: parent === '-' ? null : parent,
      files: Number(files),
      additions: Number(additions),
      deletions: Number(deletions),
    };
    return { taken, via: relayed === null ? ('exec' as const) : ('relay' as const) };
  }

  /** The relay's run of the script; null: no relay answered, or one of another build (`stale`). */
  private async takeByRelay(
    workspaceId: string,
    worktree: string,
    ref: string,
    message: string,
    prev: string | null,
  ): Promise<ScriptRun | null> {
    if (!this.relay) return null;
    const ask: RelayCheckpoint = {
      scriptSha256: TAKE_SHA256,
      worktree,
      repo: this.repoDir,
      ref,
      message,
      prev,
      timeoutMs: SCRIPT_TIMEOUT_MS,
    };
    // The relay's own timeout first: its answer (RELAY_TIMED_OUT) says what ran out, ours only that none came.
    const raw = await this.relay(workspaceId, JSON.stringify(ask), SCRIPT_TIMEOUT_MS + 5000);
    if (raw === null) return null;
    const answer = RelayCheckpointAnswer.safeParse(safeJson(raw));
    if (!answer.success)
      throw new NexusError(
        'unavailable',
        "The workspace's hook relay answered the checkpoint in words it cannot read.",
      );
    if ('stale' in answer.data) return null;
    if ('bad_input' in answer.data)
      throw new NexusError('internal', `The hook relay refused the checkpoint: ${answer.data.bad_input}`);
    // Its time ran out in the relay (which killed it): the same `timeout` the exec's own limit gives.
    if (answer.data.exitCode === RELAY_TIMED_OUT)
      throw new NexusError('timeout', `A command in the workspace did not finish within ${SCRIPT_TIMEOUT_MS} ms.`);
    return answer.data;
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
