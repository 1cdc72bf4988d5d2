import type { SetupState } from '../../../../shared/contract/session-setup';
import type { Db } from '../../store';

export interface SetupRecord {
  state: SetupState;
  exitCode: number | null;
  output: string;
}

export interface SessionFileRow {
  path: string;
  content: string | null;
  secretId: string | null;
}

/** Setup states per session and the files put into each new worktree per workspace (migration 032). */
export class SessionSetupStore {
  constructor(private readonly db: Db) {}

  setup(sessionId: string): SetupRecord | null {
    const r = this.db
      .prepare('SELECT state, exit_code, output FROM session_setups WHERE session_id = ?')
      .get(sessionId) as { state: SetupState; exit_code: number | null; output: string } | undefined;
    return r ? { state: r.state, exitCode: r.exit_code, output: r.output } : null;
  }

  /** Saves a session's setup state (a session deleted meanwhile: nothing, its row is gone). */
  saveSetup(sessionId: string, s: SetupRecord): void {
    // The row's session is its foreign key (foreign keys are on, open.ts): a session gone refuses the insert.
    try {
      this.db
        .prepare(
          `INSERT INTO session_setups (session_id, state, exit_code, output, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(session_id) DO UPDATE SET state = excluded.state, exit_code = excluded.exit_code,
           output = excluded.output, updated_at = excluded.updated_at`,
        )
        .run(sessionId, s.state, s.exitCode, s.output, new Date().toISOString());
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_FOREIGNKEY') throw e;
    }
  }

  files(workspaceId: string): SessionFileRow[] {
    return (
      this.db
        .prepare('SELECT path, content, secret_id FROM workspace_session_files WHERE workspace_id = ? ORDER BY path')
        .all(workspaceId) as { path: string; content: string | null; secret_id: string | null }[]
    ).map((r) => ({ path: r.path, content: r.content, secretId: r.secret_id }));
  }

  setFiles(workspaceId: string, files: SessionFileRow[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM workspace_session_files WHERE workspace_id = ?').run(workspaceId);
      const add = this.db.prepare(
        'INSERT INTO workspace_session_files (workspace_id, path, content, secret_id) VALUES (?, ?, ?, ?)',
      );
      for (const f of files) add.run(workspaceId, f.path, f.content, f.secretId);
    })();
  }
}
