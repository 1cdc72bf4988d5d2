import { createHash, randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store';

/** Who a gateway credential speaks for. */
export interface GatewayCaller {
  sessionId: string;
  workspaceId: string;
  agent: string;
}

const hashOf = (credential: string): string => createHash('sha256').update(credential, 'utf8').digest('hex');

/**
 * Sessions' gateway credentials (table gateway_credentials, migration 030): only their SHA-256 is kept; one per
 * session at a time (a new run replaces it); it goes with its session (ON DELETE CASCADE).
 */
export class GatewayCredentialStore {
  private byHash: Statement | undefined;

  constructor(private readonly db: Db) {}

  /** A fresh credential for the session, replacing any it had. The value is returned once and never stored. */
  issue(caller: GatewayCaller): string {
    const credential = `nxg_${randomBytes(32).toString('base64url')}`;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM gateway_credentials WHERE session_id = ?').run(caller.sessionId);
      this.db
        .prepare(
          'INSERT INTO gateway_credentials (hash, session_id, workspace_id, agent, created_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(hashOf(credential), caller.sessionId, caller.workspaceId, caller.agent, new Date().toISOString());
    })();
    return credential;
  }

  /** The session a presented credential belongs to, or null (unknown, revoked, or its session gone). */
  verify(credential: string): GatewayCaller | null {
    if (!/^nxg_[A-Za-z0-9_-]{20,100}$/.test(credential)) return null;
    // Prepared once: this runs on every model request (a prepare cost more than the lookup: docs/performance.md).
    this.byHash ??= this.db.prepare('SELECT session_id, workspace_id, agent FROM gateway_credentials WHERE hash = ?');
    const row = this.byHash.get(hashOf(credential)) as
      { session_id: string; workspace_id: string; agent: string } | undefined;
    return row ? { sessionId: row.session_id, workspaceId: row.workspace_id, agent: row.agent } : null;
  }

  revoke(sessionId: string): void {
    this.db.prepare('DELETE FROM gateway_credentials WHERE session_id = ?').run(sessionId);
  }
}
