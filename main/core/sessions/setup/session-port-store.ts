import type { Db } from '../../store';

/** Each session's port block on its engine (`session_ports`), by the block's first port. */
export class SessionPortStore {
  private readonly ofSession;
  private readonly onEngine;
  private readonly insert;

  constructor(db: Db) {
    this.ofSession = db.prepare('SELECT first_port FROM session_ports WHERE session_id = ?');
    this.onEngine = db.prepare('SELECT first_port FROM session_ports WHERE engine = ?');
    this.insert = db.prepare('INSERT INTO session_ports (session_id, engine, first_port) VALUES (?, ?, ?)');
  }

  /** The first port of the session's block, if it has one. */
  firstPortOf(sessionId: string): number | null {
    return (this.ofSession.get(sessionId) as { first_port: number } | undefined)?.first_port ?? null;
  }

  /** The first ports of the blocks taken on an engine. */
  takenOn(engine: string): Set<number> {
    return new Set((this.onEngine.all(engine) as { first_port: number }[]).map((r) => r.first_port));
  }

  add(sessionId: string, engine: string, firstPort: number): void {
    this.insert.run(sessionId, engine, firstPort);
  }
}
