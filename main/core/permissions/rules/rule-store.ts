import type { RuleAction, RuleTool } from '../../../../shared/contract/rules';
import type { Db } from '../../store';

/** An approval_rules row (migration 029). */
export interface StoredRule {
  id: string;
  scope: 'global' | 'workspace' | 'session';
  workspaceId: string | null;
  sessionId: string | null;
  action: RuleAction;
  tool: RuleTool;
  pattern: string;
  note: string | null;
  source: 'operator' | 'grant';
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
}

interface Row {
  id: string;
  scope: StoredRule['scope'];
  workspace_id: string | null;
  session_id: string | null;
  action: RuleAction;
  tool: RuleTool;
  pattern: string;
  note: string | null;
  source: StoredRule['source'];
  created_by: string;
  created_at: string;
  expires_at: string | null;
}

const toRule = (r: Row): StoredRule => ({
  id: r.id,
  scope: r.scope,
  workspaceId: r.workspace_id,
  sessionId: r.session_id,
  action: r.action,
  tool: r.tool,
  pattern: r.pattern,
  note: r.note,
  source: r.source,
  createdBy: r.created_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** The operator's approval rules and grants. SQL only. */
export class RuleStore {
  constructor(private readonly db: Db) {}

  all(): StoredRule[] {
    return (this.db.prepare('SELECT * FROM approval_rules ORDER BY created_at, id').all() as Row[]).map(toRule);
  }

  insert(r: StoredRule): void {
    this.db
      .prepare(
        `INSERT INTO approval_rules (id, scope, workspace_id, session_id, action, tool, pattern, note, source,
           created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        r.id,
        r.scope,
        r.workspaceId,
        r.sessionId,
        r.action,
        r.tool,
        r.pattern,
        r.note,
        r.source,
        r.createdBy,
        r.createdAt,
        r.expiresAt,
      );
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM approval_rules WHERE id = ?').run(id).changes > 0;
  }

  /** Removes the rules that ran out by `now`; returns how many. */
  removeExpired(now: string): number {
    return this.db.prepare('DELETE FROM approval_rules WHERE expires_at IS NOT NULL AND expires_at <= ?').run(now)
      .changes;
  }
}
