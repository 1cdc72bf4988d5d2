import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../test/helpers/core';
import { vaultCoreForSuite } from '../../../test/helpers/suite';
import { filesHolding } from '../../../test/helpers/disk-scan';
import { hashSecret } from './token-secret';
import { TokenStore } from './token-store';

describe('MCP tokens', () => {
  const suite = vaultCoreForSuite();

  it('makes a 256-bit random secret with the class prefix, different every time', async () => {
    const prefixes = { read: 'nxs_r_', write: 'nxs_w_', vault: 'nxs_v_' } as const;
    for (const cls of ['read', 'write', 'vault'] as const) {
      const a = await suite.core.tokens.create(`a-${cls}`, cls);
      const b = await suite.core.tokens.create(`b-${cls}`, cls);
      expect(a.secret.startsWith(prefixes[cls])).toBe(true);
      expect(Buffer.from(a.secret.slice(6), 'base64url')).toHaveLength(32);
      expect(a.secret).not.toBe(b.secret);
      expect(a.token.hint).toBe(`${a.secret.slice(0, 10)}…`);
    }
  });

  it('keeps only the SHA-256 of the secret: the database file never holds it', async () => {
    const { secret, token } = await suite.core.tokens.create('disk check', 'write');
    const row = coreDb(suite.core).prepare('SELECT hash FROM tokens WHERE id = ?').get(token.id) as { hash: Buffer };
    expect(row.hash.equals(hashSecret(secret))).toBe(true);
    expect(filesHolding(suite.core, [secret.slice(6)])).toEqual([]);
  });

  it('authenticates an active token as a token caller of its class and records the use', async () => {
    const { secret, token } = await suite.core.tokens.create('ci', 'write');
    expect(token.lastUsedAt).toBeNull();
    const auth = await suite.core.tokens.authenticate(secret);
    expect(auth).toMatchObject({
      ok: true,
      caller: { kind: 'token', tokenId: token.id, name: 'ci', access: 'write' },
    });
    expect(suite.core.tokens.store.get(token.id)?.lastUsedAt).not.toBeNull();
  });

  it('refuses an expired, a revoked, an unknown and a malformed token, saying which', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const store = new TokenStore(coreDb(suite.core), () => now);
    const soon = store.create('soon', 'read', new Date('2030-01-02T00:00:00Z'));
    expect(store.verify(soon.secret).ok).toBe(true);
    now = new Date('2030-01-02T00:00:00Z');
    expect(store.verify(soon.secret)).toEqual({ ok: false, reason: 'expired' });
    expect(store.get(soon.token.id)?.state).toBe('expired');

    const { secret, token } = await suite.core.tokens.create('to revoke', 'read');
    const revoked = await suite.core.tokens.revoke(token.id);
    expect(revoked.state).toBe('revoked');
    expect(await suite.core.tokens.authenticate(secret)).toEqual({ ok: false, reason: 'revoked' });

    expect(await suite.core.tokens.authenticate(`nxs_r_${'A'.repeat(43)}`)).toEqual({ ok: false, reason: 'unknown' });
    expect(await suite.core.tokens.authenticate('nxs_r_short')).toEqual({ ok: false, reason: 'malformed' });
    expect(await suite.core.tokens.authenticate(suite.core.config.version)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('records the last use at most once a minute', () => {
    let now = new Date('2031-01-01T00:00:00Z');
    const store = new TokenStore(coreDb(suite.core), () => now);
    const { secret, token } = store.create('busy', 'read', new Date('2031-02-01T00:00:00Z'));
    store.verify(secret);
    expect(store.get(token.id)?.lastUsedAt).toBe('2031-01-01T00:00:00.000Z');
    now = new Date('2031-01-01T00:00:30Z');
    store.verify(secret);
    expect(store.get(token.id)?.lastUsedAt).toBe('2031-01-01T00:00:00.000Z');
    now = new Date('2031-01-01T00:01:01Z');
    store.verify(secret);
    expect(store.get(token.id)?.lastUsedAt).toBe('2031-01-01T00:01:01.000Z');
  });

  it('does not let a secret claim a higher class than the one stored', async () => {
    const { secret } = await suite.core.tokens.create('sneaky', 'read');
    expect(await suite.core.tokens.authenticate(secret.replace('nxs_r_', 'nxs_v_'))).toMatchObject({ ok: false });
  });

  it('refuses to revoke a token that does not exist', async () => {
    await expect(suite.core.tokens.revoke('tok_missing')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('announces creation and revocation as tokens.changed events without the secret', async () => {
    const seen: string[] = [];
    const sub = suite.core.events.subscribe((e) => seen.push(JSON.stringify(e)));
    const { secret, token } = await suite.core.tokens.create('events', 'read');
    await suite.core.tokens.revoke(token.id);
    sub.dispose();
    expect(seen.filter((s) => s.includes('"tokens.changed"') && s.includes(token.id))).toHaveLength(2);
    expect(seen.join('\n')).not.toContain(secret.slice(6));
  });
});
