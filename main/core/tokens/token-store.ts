import { randomUUID } from 'node:crypto';
import type { TokenClass, TokenInfo, TokenState } from '../../../shared/contract';
import type { Db } from '../store';
import { claimedClass, hashSecret, hintOf, newTokenSecret, sameDigest } from './token-secret';

interface TokenRow {
  id: string;
  name: string;
  class: TokenClass;
  hash: Buffer;
  hint: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** Last use is recorded at most once a minute per token, so a busy client does not cost a disk sync per call. */
const LAST_USED_RESOLUTION_MS = 60_000;

export type Verdict =
  { ok: true; token: TokenInfo } | { ok: false; reason: 'malformed' | 'unknown' | 'expired' | 'revoked' };

/** The tokens table: creates secrets, keeps only their hashes, answers "is this secret valid now". */
export class TokenStore {
  /** The two statements every authenticated call runs, prepared once. */
  private readonly byHash;
  private readonly touch;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.byHash = db.prepare('SELECT * FROM tokens WHERE hash = ?');
    this.touch = db.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?');
  }

  create(name: string, cls: TokenClass, expiresAt: Date): { token: TokenInfo; secret: string } {
    const secret = newTokenSecret(cls);
    const row: TokenRow = {
      id: `tok_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
      name,
      class: cls,
      hash: hashSecret(secret),
      hint: hintOf(secret),
      created_at: this.now().toISOString(),
      expires_at: expiresAt.toISOString(),
      revoked_at: null,
      last_used_at: null,
    };
    this.db
      .prepare(
        'INSERT INTO tokens (id, name, class, hash, hint, created_at, expires_at) ' +
          'VALUES (@id, @name, @class, @hash, @hint, @created_at, @expires_at)',
      )
      .run(row);
    return { token: this.info(row), secret };
  }

  /** Undo of a create whose follow-up (the vault principal) failed. */
  remove(id: string): void {
    this.db.prepare('DELETE FROM tokens WHERE id = ?').run(id);
  }

  list(): TokenInfo[] {
    return (this.db.prepare('SELECT * FROM tokens ORDER BY created_at DESC, id').all() as TokenRow[]).map((r) =>
      this.info(r),
    );
  }

  get(id: string): TokenInfo | null {
    const row = this.db.prepare('SELECT * FROM tokens WHERE id = ?').get(id) as TokenRow | undefined;
    return row ? this.info(row) : null;
  }

  /** Marks a token revoked (idempotent); returns it, or null when there is no such token. */
  revoke(id: string): TokenInfo | null {
    this.db
      .prepare('UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?')
      .run(this.now().toISOString(), id);
    return this.get(id);
  }

  /**
   * Checks a presented secret. The row is found by the digest (an index on a SHA-256 of a random
   * secret reveals nothing to time), then the digests are compared in constant time, the claimed
   * prefix must match the stored class, and expiry and revocation are checked. Records last use.
   */
  verify(secret: string): Verdict {
    const claimed = claimedClass(secret);
    if (!claimed) return { ok: false, reason: 'malformed' };
    const digest = hashSecret(secret);
    const row = this.byHash.get(digest) as TokenRow | undefined;
    if (!row || !sameDigest(row.hash, digest) || row.class !== claimed) return { ok: false, reason: 'unknown' };
    const info = this.info(row);
    if (info.state !== 'active') return { ok: false, reason: info.state };
    const now = this.now();
    if (row.last_used_at !== null && now.getTime() - Date.parse(row.last_used_at) < LAST_USED_RESOLUTION_MS)
      return { ok: true, token: info };
    const at = now.toISOString();
    this.touch.run(at, row.id);
    return { ok: true, token: { ...info, lastUsedAt: at } };
  }

  /** Whether `secret` is the secret of token `id` (no state check, no last-use record: for core's own copies). */
  holds(id: string, secret: string): boolean {
    const row = this.db.prepare('SELECT hash FROM tokens WHERE id = ?').get(id) as Pick<TokenRow, 'hash'> | undefined;
    return row !== undefined && sameDigest(row.hash, hashSecret(secret));
  }

  private info(row: TokenRow): TokenInfo {
    const state: TokenState = row.revoked_at
      ? 'revoked'
      : Date.parse(row.expires_at) <= this.now().getTime()
        ? 'expired'
        : 'active';
    return {
      id: row.id,
      name: row.name,
      class: row.class,
      hint: row.hint,
      state,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
    };
  }
}
