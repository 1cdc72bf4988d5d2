import type { Attempt, AttemptGroup } from '../../../shared/contract/attempts';
import { NexusError } from '../../../shared/errors';
import { toDisposable, type Disposable } from '../disposable';
import type { Db } from '../store';
import { AttemptStore, type GroupRow, type MemberRow } from './attempt-store';
import type { Checkpoints } from './checkpoints';
import { GIT_PRELUDE } from '../../../shared/git-scripts';
import { runScript } from './container-git';
import type { ReviewDeps } from './review-deps';

/** How long the branches of attempts not kept stay, and how often Nexus looks for ones due. */
export const KEEP_BRANCHES_MS = 7 * 24 * 60 * 60 * 1000;
const SWEEP_MS = 60 * 60 * 1000;

/** Deletes a branch unless a worktree has it checked out (exit 4); a branch already gone is fine. */
const DELETE_BRANCH = `${GIT_PRELUDE}
repo=$1; br=$2
cd "$repo" 2>/dev/null || exit 3
git rev-parse -q --verify "refs/heads/$br" >/dev/null || exit 0
git worktree list --porcelain | grep -qxF "branch refs/heads/$br" && { echo "$br is checked out in a worktree." >&2; exit 4; }
git update-ref -d "refs/heads/$br"
`;

/**
 * Try it N ways: one prompt starts N sessions (2–10, any mix of agent kinds) as a group; the compare view
 * reads each attempt's session, its branch beside the base and its turns; keeping one deletes the others'
 * sessions and keeps their branches a week (then a sweep deletes them).
 */
export class Attempts {
  private readonly store: AttemptStore;

  constructor(
    private readonly d: ReviewDeps,
    db: Db,
    private readonly checkpoints: Pick<Checkpoints, 'turns'>,
  ) {
    this.store = new AttemptStore(db);
  }

  /** Deletes the branches whose week is over, hourly and once at start. */
  follow(): Disposable {
    const sweep = () =>
      void this.sweep().catch((e: unknown) => this.d.log.warn('expired attempt branches: sweep failed', { error: e }));
    const first = setTimeout(sweep, 30_000);
    const timer = setInterval(sweep, SWEEP_MS);
    first.unref();
    timer.unref();
    return toDisposable(() => (clearTimeout(first), clearInterval(timer)));
  }

  async start(input: { workspace: string; name: string; prompt: string; agents: string[] }): Promise<AttemptGroup> {
    const ws = this.d.runtime.find(input.workspace);
    if (!ws) throw new NexusError('not_found', `No workspace "${input.workspace}".`);
    if (this.store.byName(ws.id, input.name))
      throw new NexusError('conflict', `Workspace ${ws.name} already has an attempt group ${input.name}.`);
    const group = this.store.insertGroup(ws.id, input.name, input.prompt);
    const made: string[] = [];
    try {
      for (const [i, agent] of input.agents.entries()) {
        const name = `${input.name}-${i + 1}`;
        const s = await this.d.sessions.create({ workspace: ws.id, name, initialMessage: input.prompt, agent });
        made.push(s.id);
        this.store.addMember({
          group_id: group.id,
          position: i + 1,
          session_id: s.id,
          name,
          branch: s.branch,
          agent: s.agent,
        });
      }
    } catch (e) {
      // All or none: the attempts made before the one refused go again (their branches are new and empty).
      for (const id of made) await this.d.sessions.delete(id, { deleteBranch: true }).catch(() => undefined);
      this.store.deleteGroup(group.id);
      throw e;
    }
    this.d.events.emit('attempts.changed', { groupId: group.id, workspaceId: ws.id });
    return this.view(group);
  }

  async list(workspace?: string): Promise<{ groups: AttemptGroup[] }> {
    const ws = workspace ? this.d.runtime.find(workspace) : null;
    if (workspace && !ws) throw new NexusError('not_found', `No workspace "${workspace}".`);
    return { groups: await Promise.all(this.store.groups(ws?.id).map((g) => this.view(g))) };
  }

  async get(id: string): Promise<AttemptGroup> {
    return this.view(this.groupOf(id));
  }

  private groupOf(id: string): GroupRow {
    const g = this.store.group(id);
    if (!g) throw new NexusError('not_found', `No attempt group ${id}.`);
    return g;
  }

  /** Keeps one attempt; deletes the others' sessions and keeps their branches for a week. */
  async keep(groupId: string, sessionRef: string): Promise<AttemptGroup> {
    const g = this.groupOf(groupId);
    if (g.kept_session_id) throw new NexusError('conflict', `Attempt group ${g.name} has already been decided.`);
    const members = this.store.members(g.id);
    const kept = members.find((m) => m.session_id === sessionRef || m.name === sessionRef);
    if (!kept) throw new NexusError('bad_request', `${sessionRef} is not one of the attempts of ${g.name}.`);
    const until = new Date(Date.now() + KEEP_BRANCHES_MS);
    for (const m of members) {
      if (m === kept) continue;
      const gone = await this.d.sessions.get(m.session_id).then(
        () => false,
        () => true,
      );
      if (!gone) await this.d.sessions.delete(m.session_id, { deleteBranch: false });
      this.store.expireBranch(g.workspace_id, m.branch, until);
    }
    this.store.decide(g.id, kept.session_id);
    this.d.events.emit('attempts.changed', { groupId: g.id, workspaceId: g.workspace_id });
    return this.view(this.groupOf(g.id));
  }

  /** Deletes the expired branches of running workspaces; one a session works on again is forgotten instead. */
  async sweep(now = new Date()): Promise<number> {
    let deleted = 0;
    for (const row of this.store.expired(now)) {
      const ws = this.d.runtime.find(row.workspace_id);
      if (!ws?.running || !ws.containerId) continue;
      const inUse = (await this.d.sessions.list(ws.id)).some((s) => s.branch === row.branch);
      if (!inUse) {
        const ok = await runScript(
          this.d.runtime,
          ws,
          DELETE_BRANCH,
          [this.d.config.repoDir, row.branch],
          'branch delete',
        )
          .then(() => true)
          .catch(
            (e: unknown) => (
              this.d.log.warn('an expired attempt branch stays', { branch: row.branch, error: e }),
              false
            ),
          );
        if (!ok) continue;
        deleted++;
      }
      this.store.forgetBranch(row.workspace_id, row.branch);
    }
    return deleted;
  }

  /** Branches of attempts not kept, with when they go. */
  expiring(workspaceId: string): { branch: string; deleteAfter: string }[] {
    return this.store.expiring(workspaceId).map((r) => ({ branch: r.branch, deleteAfter: r.delete_after }));
  }

  private async view(g: GroupRow): Promise<AttemptGroup> {
    const attempts = await Promise.all(this.store.members(g.id).map((m) => this.attempt(m)));
    return {
      id: g.id,
      workspaceId: g.workspace_id,
      name: g.name,
      prompt: g.prompt,
      keptSessionId: g.kept_session_id,
      decidedAt: g.decided_at,
      createdAt: g.created_at,
      attempts,
    };
  }

  private async attempt(m: MemberRow): Promise<Attempt> {
    const session = await this.d.sessions.get(m.session_id).catch(() => null);
    let note: string | null = !session
      ? 'Deleted (its branch is kept for a week after the group was decided).'
      : session.status === 'creating'
        ? 'Being created; its changes show once it runs.'
        : null;
    const changes =
      session && session.status !== 'creating' && this.d.changes
        ? await this.d.changes(m.session_id).catch((e: unknown) => {
            note = e instanceof Error ? e.message : String(e);
            return null;
          })
        : null;
    return {
      position: m.position,
      sessionId: m.session_id,
      name: m.name,
      branch: m.branch,
      agent: m.agent,
      session,
      changes,
      turns: this.checkpoints.turns(m.session_id),
      note,
    };
  }
}
