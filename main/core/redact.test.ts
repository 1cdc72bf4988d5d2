import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from './redact';

describe('Redactor', () => {
  it('masks a registered secret wherever it appears', () => {
    const r = new Redactor();
    r.addSecret('hunter2-very-secret');
    expect(r.text('clone failed: https://x:hunter2-very-secret@host/repo')).not.toContain('hunter2-very-secret');
    expect(r.value({ nested: ['a hunter2-very-secret b'] })).toEqual({ nested: [`a ${REDACTED} b`] });
  });

  it('masks a secret registered after the same text was already passed through clean', () => {
    const r = new Redactor();
    const line = 'pushed with deploy-key-7f3a9c2e';
    expect(r.text(line)).toBe(line);
    expect(r.value({ note: line })).toEqual({ note: line });
    r.addSecret('deploy-key-7f3a9c2e');
    expect(r.text(line)).toBe(`pushed with ${REDACTED}`);
    expect(r.value({ note: line })).toEqual({ note: `pushed with ${REDACTED}` });
    r.removeSecret('deploy-key-7f3a9c2e');
    expect(r.text('deploy-7f3a9c2e1b')).toBe('deploy-7f3a9c2e1b');
  });

  it('masks values of secret-shaped environment variables', () => {
    const r = new Redactor();
    r.addEnvSecrets({ GITHUB_TOKEN: 'abcdef123456', MY_API_KEY: 'zzzzyyyyxxxx', HOME: '/root' });
    expect(r.text('token abcdef123456 key zzzzyyyyxxxx home /root')).toBe(
      `token ${REDACTED} key ${REDACTED} home /root`,
    );
  });

  it('masks NAME=value assignments whose name looks secret', () => {
    const r = new Redactor();
    expect(r.text('env: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG PATH=/usr/bin')).toBe(
      `env: AWS_SECRET_ACCESS_KEY=${REDACTED} PATH=/usr/bin`,
    );
    expect(r.text('{"db_password": "s3cr3t-pw"}')).toBe(`{"db_password": "${REDACTED}"}`);
  });

  it.each([
    ['nexus token', 'nxs_w_AbCdEfGhIjKlMnOpQrStUvWxYz012345'],
    ['github classic', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['github fine-grained', 'github_pat_11ABCDEFG0abcdefghijklmnopqrstuv'],
    ['gitlab', 'glpat-abcdefghijklmnopqrst'],
    ['aws access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['anthropic', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'],
  ])('masks a %s by its shape', (_name, token) => {
    expect(new Redactor().text(`here: ${token} end`)).toBe(`here: ${REDACTED} end`);
  });

  it('masks credentials in URLs and secret-named properties', () => {
    const r = new Redactor();
    expect(r.text('https://oauth2:abc123xyz@git.example/x.git')).toBe(`https://oauth2:${REDACTED}@git.example/x.git`);
    expect(r.value({ apiKey: 'k', secretId: 'sec_1', name: 'n' })).toEqual({
      apiKey: REDACTED,
      secretId: 'sec_1',
      name: 'n',
    });
  });

  it('keeps error messages (redacted) when it walks an Error', () => {
    const r = new Redactor();
    r.addSecret('topsecretvalue');
    expect(r.value({ error: new Error('bad topsecretvalue') })).toEqual({
      error: { name: 'Error', message: `bad ${REDACTED}` },
    });
  });

  it('forgets a removed secret and ignores values too short to be meaningful', () => {
    const r = new Redactor();
    r.addSecret('abc');
    r.addSecret('longer-secret');
    r.removeSecret('longer-secret');
    expect(r.text('abc longer-secret')).toBe('abc longer-secret');
  });
});
