import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MemoryScope } from '../../../shared/platform-tools';
import { searchAllThenAny } from '../platform/store/fts';
import type { Db } from '../store/open';

export const MemoryStatus = z.enum(['pending', 'active', 'rejected']);

export interface MemoryRecord {
  id: string;
  content: string;
  scope: MemoryScope;
  project: string | null;
  agentId: string | null;
  runId: string | null;
  status: z.infer<typeof MemoryStatus>;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
}

const Row = z.object({
  uid: z.string(),
  content: z.string(),
  scope: MemoryScope,
  project: z.string().nullable(),
  agent_id: z.string().nullable(),
  run_id: z.string().nullable(),
  status: MemoryStatus,
  created_at: z.string(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable(),
});
const toMemory = (raw: unknown): MemoryRecord => {
  const r = Row.parse(raw);
  return {
    id: r.uid,
    content: r.content,
    scope: r.scope,
    project: r.project,
    agentId: r.agent_id,
    runId: r.run_id,
    status: r.status,
    createdAt: r.created_at,
    decidedAt: r.decided_at,
    decidedBy: r.decided_by,
  };
};

/** Who is reading: decides which scopes are visible. */
export interface MemoryReader {
  agentId: string;
  project: string | null;
}

/** Memories (+ FTS5). Agents only ever add `pending` rows; a person makes them `active`. */
export class MemoryStore {
  private readonly searchStmt;
  constructor(private readonly db: Db) {
    // Visibility is part of the SQL, not a filter after the fact: active AND (global OR own project OR own private).
    const search = (order: string) =>
      db.prepare(
        `SELECT m.* FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
         WHERE memories_fts MATCH @match AND m.status = 'active'
           AND (m.scope = 'global'
                OR (m.scope = 'project' AND @project IS NOT NULL AND m.project = @project)
                OR (m.scope = 'private' AND m.agent_id = @agentId))
         ${order} LIMIT @limit`,
      );
    this.searchStmt = { ranked: search('ORDER BY memories_fts.rank'), unranked: search('') };
  }

  propose(input: {
    content: string;
    scope: MemoryScope;
    project: string | null;
    agentId: string | null;
    runId: string | null;
    status?: 'pending' | 'active';
  }): MemoryRecord {
    const uid = randomUUID();
    this.db
      .prepare(
        'INSERT INTO memories (uid, content, scope, project, agent_id, run_id, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        uid,
        input.content,
        input.scope,
        input.project,
        input.agentId,
        input.runId,
        input.status ?? 'pending',
        new Date().toISOString(),
      );
    return this.get(uid) as MemoryRecord;
  }

  get(id: string): MemoryRecord | null {
    const row = this.db.prepare('SELECT * FROM memories WHERE uid = ?').get(id);
    return row ? toMemory(row) : null;
  }

  search(reader: MemoryReader, query: string, limit: number): MemoryRecord[] {
    return searchAllThenAny(query, limit, (match, n, ranked) =>
      this.searchStmt[ranked ? 'ranked' : 'unranked']
        .all({ match, project: reader.project, agentId: reader.agentId, limit: n })
        .map(toMemory),
    );
  }

  pending(): MemoryRecord[] {
    return this.db.prepare("SELECT * FROM memories WHERE status = 'pending' ORDER BY id").all().map(toMemory);
  }

  countPending(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM memories WHERE status = 'pending'").get() as { n: number }).n;
  }

  /** Decides a pending memory; returns false when it is not pending (already decided or unknown). */
  decide(id: string, status: 'active' | 'rejected', by: string, content?: string): boolean {
    const r = this.db
      .prepare(
        "UPDATE memories SET status = ?, content = COALESCE(?, content), decided_at = ?, decided_by = ? WHERE uid = ? AND status = 'pending'",
      )
      .run(status, content ?? null, new Date().toISOString(), by, id);
    return r.changes === 1;
  }
}
