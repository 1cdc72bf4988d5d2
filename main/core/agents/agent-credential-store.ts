import type { Db } from '../store';

/** Each agent kind's default credential (table agent_credentials, migration 026): a vault secret id, or none. */
export class AgentCredentialStore {
  constructor(private readonly db: Db) {}

  get(kind: string): string | null {
    const row = this.db.prepare('SELECT secret_id AS id FROM agent_credentials WHERE kind = ?').get(kind) as
      { id: string } | undefined;
    return row?.id ?? null;
  }

  set(kind: string, secretId: string | null): void {
    if (secretId === null) this.db.prepare('DELETE FROM agent_credentials WHERE kind = ?').run(kind);
    else
      this.db
        .prepare(
          `INSERT INTO agent_credentials (kind, secret_id, updated_at) VALUES (?, ?, ?)
           ON CONFLICT(kind) DO UPDATE SET secret_id = excluded.secret_id, updated_at = excluded.updated_at`,
        )
        .run(kind, secretId, new Date().toISOString());
  }
}
