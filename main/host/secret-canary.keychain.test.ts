import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/temp-dir';
import { vaultDataDir } from '../../test/helpers/vault';
import { startHost, type Host } from './server';
import type { Core } from '../core';
import type { Dek } from '../core/vault/dek';
import { coreDb } from '../../test/helpers/core';

/**
 * Canary: every vault.* and secrets.* operation is called over the real HTTP host with a unique
 * secret value and passphrase; then every response, every pushed event, every log line, the
 * audit table and the raw bytes of the SQLite file and WAL are searched for them (and the DEK).
 */
const CANARY = `canary-${randomUUID()}`;
const CANARY_2 = `canary2-${randomUUID()}`;
const CANARY_LOCKED = `canary3-${randomUUID()}`;
const PASS = `pass-${randomUUID()}`;
const PASS_2 = `pass2-${randomUUID()}`;

describe('secret values never leave core', () => {
  const dir = vaultDataDir();
  const ui = tempDir('nexus-ui-');
  let core: Core;
  let host: Host;
  let stream = '';
  let closeStream: () => void = () => {};
  const bodies: string[] = [];
  const keys: Buffer[] = [];
  const currentKey = () => Buffer.from((Reflect.get(core.vault, 'dek') as Dek).key);

  const rpc = async (
    op: string,
    input: unknown,
  ): Promise<{ result?: Record<string, unknown>; error?: { code: string; message: string } }> => {
    const res = await fetch(`${host.url}/api/rpc/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const text = await res.text();
    bodies.push(text);
    return JSON.parse(text) as never;
  };

  beforeAll(async () => {
    core = await dir.open();
    host = await startHost(core, { port: 0, rendererDir: ui.path });
    await new Promise<void>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: host.port,
          path: '/api/events',
          headers: { host: `127.0.0.1:${host.port}`, authorization: `Bearer ${host.token}` },
        },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (c: string) => (stream += c));
          resolve();
        },
      );
      req.end();
      closeStream = () => req.destroy();
    });

    expect((await rpc('vault.status', {})).result?.state).toBe('uninitialized');
    expect((await rpc('vault.init', { recoveryPassphrase: PASS })).result?.state).toBe('unlocked');
    keys.push(currentKey());
    const created = (await rpc('secrets.create', { name: 'canary', kind: 'github', host: 'github.com', value: CANARY }))
      .result!;
    expect(created.last4).toBe(CANARY.slice(-4));
    const id = String(created.id);
    await rpc('secrets.list', {});
    await rpc('secrets.update', { id, name: 'canary renamed' });
    await rpc('secrets.update', { id, value: CANARY_2 });
    expect((await rpc('secrets.create', { name: 'canary renamed', kind: 'generic', value: CANARY })).error?.code).toBe(
      'conflict',
    );
    expect((await rpc('secrets.create', { name: 'bad kind', kind: 'bitbucket', value: CANARY })).error?.code).toBe(
      'bad_request',
    );
    expect((await core.vault.resolveSecret(id)).value).toBe(CANARY_2);
    core.log.info('docker output', { line: `git clone https://x-access-token:${CANARY_2}@github.com/o/r` });
    await rpc('vault.lock', {});
    expect(
      (await rpc('secrets.create', { name: 'while locked', kind: 'generic', value: CANARY_LOCKED })).error?.code,
    ).toBe('vault_locked');
    await rpc('secrets.list', {});
    expect((await rpc('vault.unlock', { passphrase: `${PASS}-wrong` })).error?.code).toBe('unauthorized');
    expect((await rpc('vault.unlock', { passphrase: PASS })).result?.state).toBe('unlocked');
    expect(
      (await rpc('vault.changePassphrase', { currentPassphrase: PASS, newPassphrase: PASS_2 })).result?.state,
    ).toBe('unlocked');
    await core.vault.addMachinePrincipal('canary-token', `nxs_v_${randomUUID()}${randomUUID()}`);
    await core.vault.removePrincipal('canary-token');
    const other = (await rpc('secrets.create', { name: 'to delete', kind: 'gitlab', value: `${CANARY}-other` }))
      .result!;
    await rpc('secrets.delete', { id: other.id });
    await rpc('app.info', {});
    await rpc('vault.status', {});
    keys.push(currentKey());
    await new Promise((r) => setTimeout(r, 100));
  });

  afterAll(async () => {
    closeStream();
    await host.close();
    await core.dispose();
    dir.remove();
    ui.remove();
  });

  const needles = (): string[] => {
    expect(keys).toHaveLength(2);
    expect(keys[0]!.equals(keys[1]!)).toBe(false);
    return [
      CANARY,
      CANARY_2,
      CANARY_LOCKED,
      PASS,
      PASS_2,
      ...keys.flatMap((k) => [k.toString('hex'), k.toString('base64')]),
    ];
  };
  const logText = () => readFileSync(join(dir.path, 'logs', 'nexus.log'), 'utf8');

  it('answered every call and pushed vault and secrets events', () => {
    expect(bodies.length).toBeGreaterThan(15);
    expect(stream).toContain('event: vault.changed');
    expect(stream).toContain('event: secrets.changed');
    expect(logText()).toContain('vault key rotated');
  });

  it('puts no value, passphrase or key in any response, event, log line or audit row, not even masked', () => {
    const audit = JSON.stringify(coreDb(core).prepare('SELECT * FROM audit').all());
    for (const haystack of [...bodies, stream, logText(), audit]) {
      for (const needle of needles()) expect(haystack).not.toContain(needle);
    }
    // Responses and events never even carried them: nothing had to be masked on the way out.
    for (const haystack of [...bodies, stream]) expect(haystack).not.toContain('[REDACTED]');
    // The one line that did carry a value (Docker output) was masked in the log.
    expect(logText()).toContain('git clone https://x-access-token:[REDACTED]');
  });

  it('keeps the SQLite file, its WAL and the logs free of every plaintext (raw bytes)', () => {
    const files = [
      join(dir.path, 'nexus.db'),
      join(dir.path, 'nexus.db-wal'),
      ...readdirSync(join(dir.path, 'logs')).map((f) => join(dir.path, 'logs', f)),
    ];
    expect(existsSync(join(dir.path, 'nexus.db-wal'))).toBe(true);
    for (const file of files.filter((f) => existsSync(f))) {
      const bytes = readFileSync(file);
      for (const needle of needles()) {
        expect(bytes.includes(Buffer.from(needle, 'utf8')), `${needle.slice(0, 8)}… in ${file}`).toBe(false);
        expect(bytes.includes(Buffer.from(needle, 'utf16le')), `${needle.slice(0, 8)}… (UTF-16) in ${file}`).toBe(
          false,
        );
      }
      for (const key of keys) expect(bytes.includes(key), `raw key bytes in ${file}`).toBe(false);
    }
  });
});
