import type Database from 'better-sqlite3';

/** Where core's ACP client is in a session's conversation (migration 031). */
export type AcpStep = 'initializing' | 'opening' | 'loading' | 'setting_mode' | 'ready' | 'ended';

export interface AcpLinkRow {
  session_id: string;
  bridge_run: string;
  cursor: number;
  step: AcpStep;
  prompt_seq: number;
  turn_prompt: number | null;
}

export interface AcpUpdateRow {
  id: number;
  bridge_run: string;
  seq: number;
  at: string;
  data: string;
}

/** The SQL of ACP sessions: core's link to each bridge, prompts that wait for a turn's end, the agent's updates. */
export class AcpStore {
  constructor(private readonly db: Database.Database) {}

  link(sessionId: string): AcpLinkRow | null {
    return (
      (this.db.prepare('SELECT * FROM acp_links WHERE session_id = ?').get(sessionId) as AcpLinkRow | undefined) ?? null
    );
  }

  /** A new bridge run (a launch or relaunch): the conversation starts over from `initialize`. */
  resetLink(sessionId: string, bridgeRun: string): AcpLinkRow {
    this.db
      .prepare(
        `INSERT INTO acp_links (session_id, bridge_run, cursor, step, prompt_seq, turn_prompt, updated_at)
         VALUES (?, ?, 0, 'initializing', 0, NULL, ?)
         ON CONFLICT (session_id) DO UPDATE SET bridge_run = excluded.bridge_run, cursor = 0, step = 'initializing',
           turn_prompt = NULL, updated_at = excluded.updated_at`,
      )
      .run(sessionId, bridgeRun, new Date().toISOString());
    return this.link(sessionId) as AcpLinkRow;
  }

  updateLink(sessionId: string, patch: Partial<Omit<AcpLinkRow, 'session_id' | 'bridge_run'>>): void {
    const cols = Object.keys(patch);
    if (!cols.length) return;
    this.db
      .prepare(
        `UPDATE acp_links SET ${cols.map((c) => `${c} = @${c}`).join(', ')}, updated_at = @at WHERE session_id = @id`,
      )
      .run({ ...patch, at: new Date().toISOString(), id: sessionId });
  }

  /** Lines of one bridge run, kept in one transaction with the cursor past them (a replay inserts nothing twice). */
  appendUpdates(
    sessionId: string,
    bridgeRun: string,
    rows: { seq: number; at: string; data: string }[],
    cursor: number,
  ): void {
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO acp_updates (session_id, bridge_run, seq, at, data) VALUES (?, ?, ?, ?, ?)',
    );
    const move = this.db.prepare(
      'UPDATE acp_links SET cursor = MAX(cursor, ?) WHERE session_id = ? AND bridge_run = ?',
    );
    this.db.transaction(() => {
      for (const r of rows) insert.run(sessionId, bridgeRun, r.seq, r.at, r.data);
      move.run(cursor, sessionId, bridgeRun);
    })();
  }

  /** Nexus's own entry in the view (a prompt it sent, a notice): numbered after the bridge's lines by its id. */
  note(sessionId: string, data: object): void {
    this.db
      .prepare(
        `INSERT INTO acp_updates (session_id, bridge_run, seq, at, data)
         VALUES (?, 'nexus', -1 * (SELECT COALESCE(MAX(id), 0) + 1 FROM acp_updates), ?, ?)`,
      )
      .run(sessionId, new Date().toISOString(), JSON.stringify(data));
  }

  /** The session's last `limit` updates, oldest first. */
  updates(sessionId: string, limit: number): AcpUpdateRow[] {
    const rows = this.db
      .prepare('SELECT id, bridge_run, seq, at, data FROM acp_updates WHERE session_id = ? ORDER BY id DESC LIMIT ?')
      .all(sessionId, limit) as AcpUpdateRow[];
    return rows.reverse();
  }

  queuePrompt(sessionId: string, text: string): void {
    this.db
      .prepare('INSERT INTO acp_prompts (session_id, text, at) VALUES (?, ?, ?)')
      .run(sessionId, text, new Date().toISOString());
  }

  nextPrompt(sessionId: string): { id: number; text: string } | null {
    return (
      (this.db.prepare('SELECT id, text FROM acp_prompts WHERE session_id = ? ORDER BY id LIMIT 1').get(sessionId) as
        { id: number; text: string } | undefined) ?? null
    );
  }

  takePrompt(id: number): void {
    this.db.prepare('DELETE FROM acp_prompts WHERE id = ?').run(id);
  }

  /** Sessions with a link (core asks each bridge after a restart). */
  linkedSessions(): string[] {
    return (
      this.db.prepare("SELECT session_id FROM acp_links WHERE step != 'ended'").all() as { session_id: string }[]
    ).map((r) => r.session_id);
  }
}
