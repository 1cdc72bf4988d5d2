import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MemoryScope } from '../../../../shared/platform-tools';
import { searchAllThenAny } from '../store/fts';
import type { Db } from '../../store';

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
  private readonly matches;
  private readonly visible;
  constructor(private readonly db: Db) {
    // The FTS table alone, in its own order (bm25 when ranked): joined to memories, SQLite's FTS5
    // scan cost twice as much (docs/performance.md).
    const matches = (order: string) =>
      db.prepare(`SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ${order}`).pluck();
    this.matches = { ranked: matches('ORDER BY rank'), unranked: matches('') };
    // Visibility is part of the SQL, not a filter after the fact: active AND (global OR own project OR own private).
    this.visible = db.prepare(
      `SELECT m.* FROM memories m WHERE m.id = @id AND m.status = 'active'
         AND (m.scope = 'global'
              OR (m.scope = 'project' AND @project IS NOT NULL AND m.project = @project)
              OR (m.scope = 'private' AND m.agent_id = @agentId))`,
    );
  }

  /**
   * Merges the memories_fts index into a single segment. A query reads every segment of each term's doclist, so an
   * index written row by row answers about twice as slowly as a merged one; core merges at start.
   */
  compact(): void {
    this.db.prepare("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')").run();
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

  /**
   * The first `limit` matches the reader may see, in FTS order: each match is checked against the
   * visibility rules as it comes, and the scan stops once enough are found.
   */
  search(reader: MemoryReader, query: string, limit: number): MemoryRecord[] {
    const who = { project: reader.project, agentId: reader.agentId };
    return searchAllThenAny(query, limit, (match, n, ranked) => {
      const out: MemoryRecord[] = [];
      for (const id of this.matches[ranked ? 'ranked' : 'unranked'].iterate(match) as IterableIterator<number>) {
        const row = this.visible.get({ ...who, id });
        if (row && out.push(toMemory(row)) >= n) break;
      }
      return out;
    });
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
        'UPDATE memories SET status = ?, content = COALESCE(?, content), decided_at = ?, decided_by = ? ' +
          "WHERE uid = ? AND status = 'pending'",
      )
      .run(status, content ?? null, new Date().toISOString(), by, id);
    return r.changes === 1;
  }
}
