import { randomUUID } from 'node:crypto';
import type { Db } from '../store';

export interface GroupRow {
  id: string;
  workspace_id: string;
  name: string;
  prompt: string;
  kept_session_id: string | null;
  decided_at: string | null;
  created_at: string;
}

export interface MemberRow {
  group_id: string;
  position: number;
  session_id: string;
  name: string;
  branch: string;
  agent: string;
}

/** Attempt groups, their members, and the branches of attempts not kept that wait to be deleted. SQL only. */
export class AttemptStore {
  constructor(private readonly db: Db) {}

  insertGroup(workspaceId: string, name: string, prompt: string): GroupRow {
    const id = randomUUID();
    this.db
      .prepare('INSERT INTO attempt_groups (id, workspace_id, name, prompt, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, workspaceId, name, prompt, new Date().toISOString());
    return this.group(id) as GroupRow;
  }

  deleteGroup(id: string): void {
    this.db.prepare('DELETE FROM attempt_groups WHERE id = ?').run(id);
  }

  byName(workspaceId: string, name: string): GroupRow | null {
    return (
      (this.db.prepare('SELECT * FROM attempt_groups WHERE workspace_id = ? AND name = ?').get(workspaceId, name) as
        GroupRow | undefined) ?? null
    );
  }

  group(id: string): GroupRow | null {
    return (this.db.prepare('SELECT * FROM attempt_groups WHERE id = ?').get(id) as GroupRow | undefined) ?? null;
  }

  groups(workspaceId?: string): GroupRow[] {
    return (
      workspaceId
        ? this.db.prepare('SELECT * FROM attempt_groups WHERE workspace_id = ? ORDER BY created_at').all(workspaceId)
        : this.db.prepare('SELECT * FROM attempt_groups ORDER BY created_at').all()
    ) as GroupRow[];
  }

  addMember(m: MemberRow): void {
    this.db
      .prepare(
        'INSERT INTO attempt_members (group_id, position, session_id, name, branch, agent) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(m.group_id, m.position, m.session_id, m.name, m.branch, m.agent);
  }

  members(groupId: string): MemberRow[] {
    return this.db
      .prepare('SELECT * FROM attempt_members WHERE group_id = ? ORDER BY position')
      .all(groupId) as MemberRow[];
  }

  decide(groupId: string, keptSessionId: string): void {
    this.db
      .prepare('UPDATE attempt_groups SET kept_session_id = ?, decided_at = ? WHERE id = ?')
      .run(keptSessionId, new Date().toISOString(), groupId);
  }

  expireBranch(workspaceId: string, branch: string, after: Date): void {
    this.db
      .prepare(
        `INSERT INTO expiring_branches (workspace_id, branch, delete_after) VALUES (?, ?, ?)
         ON CONFLICT(workspace_id, branch) DO UPDATE SET delete_after = excluded.delete_after`,
      )
      .run(workspaceId, branch, after.toISOString());
  }

  expired(now: Date): { workspace_id: string; branch: string }[] {
    return this.db
      .prepare('SELECT workspace_id, branch FROM expiring_branches WHERE delete_after <= ?')
      .all(now.toISOString()) as { workspace_id: string; branch: string }[];
  }

  expiring(workspaceId: string): { branch: string; delete_after: string }[] {
    return this.db
      .prepare('SELECT branch, delete_after FROM expiring_branches WHERE workspace_id = ? ORDER BY branch')
      .all(workspaceId) as { branch: string; delete_after: string }[];
  }

  forgetBranch(workspaceId: string, branch: string): void {
    this.db.prepare('DELETE FROM expiring_branches WHERE workspace_id = ? AND branch = ?').run(workspaceId, branch);
  }
}
