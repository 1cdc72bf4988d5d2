import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SoftPasskey } from '../../../test/helpers/soft-passkey';
import { tempDir } from '../../../test/helpers/temp-dir';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { openStore, type Db } from '../store/open';
import { PhoneService } from './phone-service';

describe('phone sessions are bound to the origin and the device that signed in', () => {
  const dir = tempDir();
  let db: Db;
  let origin: string | null;
  let phone: PhoneService;
  const key = new SoftPasskey();

  const signIn = async () => {
    const options = await phone.signInOptions();
    return phone.signIn(key.signIn(options, origin ?? '') as never);
  };

  beforeEach(async () => {
    db = openStore(join(dir.path, 'nexus.db'));
    origin = 'https://nexus.example.test';
    phone = new PhoneService(db, { remote: { origin: () => origin }, log: createLogger({ redactor: new Redactor() }) });
    phone.setEnabled(true);
    const token = new URL(phone.invite('Pixel').url).hash.replace('#/register/', '');
    const options = await phone.registrationOptions(token);
    await phone.register(token, key.register(options, origin) as never);
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  it('refuses a session cookie made for another origin once the public origin moved', async () => {
    const { secret } = await signIn();
    expect(phone.authenticate(secret)?.deviceName).toBe('Pixel');
    origin = 'https://other.example.test';
    expect(phone.authenticate(secret)).toBeNull();
    // The passkey was made for the old host (its rpID): it cannot sign in on the new one either.
    await expect(signIn()).rejects.toThrow(/not registered/);
  });

  it('keeps no cookie value, registration token or private key in the database', async () => {
    const { secret } = await signIn();
    const dump = JSON.stringify([
      db.prepare('SELECT * FROM phone_sessions').all(),
      db.prepare('SELECT * FROM phone_invites').all(),
    ]);
    expect(dump).not.toContain(secret);
    expect(phone.devices()).toEqual([expect.objectContaining({ name: 'Pixel', activeSessions: 1 })]);
  });

  it('signs every phone out when the phone UI is turned off', async () => {
    const { secret } = await signIn();
    phone.setEnabled(false);
    phone.setEnabled(true);
    expect(phone.authenticate(secret)).toBeNull();
  });
});
