import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { openStore } from '../store/open';
import { idHash, OAuthEntries, UNAPPROVED_CLIENT_SECONDS } from './oauth-entries';

describe('the authorization server storage', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keys rows by the hash of the id and never stores the id of a token', async () => {
    const db = openStore(join(dir.path, 'a.db'));
    const entries = new OAuthEntries(db);
    await entries.upsert(
      'AccessToken',
      'secret-token-value',
      { jti: 'secret-token-value', grantId: 'g1', kind: 'AccessToken' },
      60,
    );
    const row = db.prepare('SELECT id_hash, payload FROM oauth_entries').get() as { id_hash: Buffer; payload: string };
    expect(row.id_hash.equals(idHash('secret-token-value'))).toBe(true);
    expect(row.payload).not.toContain('secret-token-value');
    expect(await entries.find('AccessToken', 'secret-token-value')).toMatchObject({
      jti: 'secret-token-value',
      grantId: 'g1',
    });
    expect(await entries.find('AccessToken', 'another-value')).toBeUndefined();
    await entries.revokeByGrantId('g1');
    expect(await entries.find('AccessToken', 'secret-token-value')).toBeUndefined();
    db.close();
  });

  it('lets an unapproved client expire after an hour, and keeps an approved one', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const db = openStore(join(dir.path, 'b.db'));
    const entries = new OAuthEntries(db, () => now);
    await entries.upsert('Client', 'c-unapproved', { client_id: 'c-unapproved' });
    await entries.upsert('Client', 'c-approved', { client_id: 'c-approved' });
    entries.keepClient('c-approved');
    now = new Date(now.getTime() + (UNAPPROVED_CLIENT_SECONDS - 1) * 1000);
    expect(await entries.find('Client', 'c-unapproved')).toMatchObject({ client_id: 'c-unapproved' });
    now = new Date(now.getTime() + 2000);
    expect(await entries.find('Client', 'c-unapproved')).toBeUndefined();
    expect(await entries.find('Client', 'c-approved')).toMatchObject({ client_id: 'c-approved' });
    // Saved again by the library (e.g. metadata update), an approved client stays without expiry.
    await entries.upsert('Client', 'c-approved', { client_id: 'c-approved', client_name: 'Claude' });
    now = new Date(now.getTime() + 30 * 86_400_000);
    expect(await entries.find('Client', 'c-approved')).toMatchObject({ client_name: 'Claude' });
    entries.sweep();
    expect((db.prepare('SELECT count(*) AS n FROM oauth_entries').get() as { n: number }).n).toBe(1);
    db.close();
  });

  it('marks a consumed entry so a second use is seen', async () => {
    const db = openStore(join(dir.path, 'c.db'));
    const entries = new OAuthEntries(db);
    await entries.upsert('AuthorizationCode', 'code-1', { jti: 'code-1', grantId: 'g' }, 600);
    await entries.consume('AuthorizationCode', 'code-1');
    expect((await entries.find('AuthorizationCode', 'code-1'))?.consumed).toBeTypeOf('number');
    db.close();
  });
});
