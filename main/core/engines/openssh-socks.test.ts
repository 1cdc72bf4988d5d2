import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/wait';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { OpenSshSocks } from './openssh-socks';

// OpenSSH's side stood in for by a script: it writes down its argv and what it found in its files, says what ssh says
// at DEBUG1 (signed in, then the dynamic forward listening on its unix socket), and answers SOCKS5 there (an echo; a
// port 1 closed before answering, as ssh does when the SSH server does not open the channel).
const FAKE_SSH = String.raw`
const fs = require('node:fs'), net = require('node:net'), path = require('node:path');
const argv = process.argv.slice(2);
const after = (flag) => argv[argv.indexOf(flag) + 1];
const opt = (name) => (argv.find((a) => a.startsWith(name + '=')) || '').slice(name.length + 1);
const keyFile = after('-i');
const record = { argv, key: fs.readFileSync(keyFile, 'utf8'), keyMode: fs.statSync(keyFile).mode & 0o777,
  knownHosts: fs.readFileSync(opt('UserKnownHostsFile'), 'utf8') };
fs.writeFileSync(path.join(__dirname, 'record.json'), JSON.stringify(record));
if (process.env.FAKE_SSH_FAIL) { process.stderr.write('Host key verification failed.\n'); process.exit(255); }
process.stderr.write('Authenticated to ' + argv[argv.length - 1] + ' ([127.0.0.1]:22) using "publickey".\n');
const socket = after('-D');
const server = net.createServer((s) => s.once('data', (d) => {
  const port = d.readUInt16BE(d.length - 2);
  if (port === 1) return s.end(Buffer.from([5, 0]));
  s.write(Buffer.from([5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
  s.pipe(s);
}));
server.listen(socket, () => process.stderr.write('debug1: Local forwarding listening on path ' + socket + '.\n'));
`;

const dir = mkdtempSync(join(tmpdir(), 'fake-ssh-'));
const binary = join(dir, 'ssh');
writeFileSync(binary, `#!${process.execPath}\n${FAKE_SSH}`, { mode: 0o755 });
// An ed25519 host key's wire blob: its type, then 32 bytes.
const hostKey = Buffer.concat([
  Buffer.from([0, 0, 0, 11]),
  Buffer.from('ssh-ed25519'),
  Buffer.from([0, 0, 0, 32]),
  Buffer.alloc(32, 7),
]);
const log = createLogger({ redactor: new Redactor(), stderr: false });
const socksOf = () =>
  new OpenSshSocks({
    binary,
    host: 'engine.example',
    port: 2222,
    username: 'nexus',
    privateKey: () => Promise.resolve('-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n-----END OPENSSH PRIVATE KEY-----'),
    hostKey,
    log,
  });
const record = () =>
  JSON.parse(readFileSync(join(dir, 'record.json'), 'utf8')) as {
    argv: string[];
    key: string;
    keyMode: number;
    knownHosts: string;
  };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the preview tunnels' OpenSSH child", () => {
  it('runs ssh pinned to the one host key with a dynamic forward on a 0600 unix socket in a 0700 directory', async () => {
    const socks = socksOf();
    try {
      await socks.ready();
      const { argv, key, keyMode, knownHosts } = record();
      expect(argv.slice(0, 4)).toEqual(['-F', 'none', '-N', '-T']);
      for (const o of [
        'StrictHostKeyChecking=yes',
        'GlobalKnownHostsFile=none',
        'IdentitiesOnly=yes',
        'ControlPath=none',
      ])
        expect(argv).toContain(o);
      expect(argv.slice(argv.indexOf('-D'), argv.indexOf('-D') + 6)).toEqual([
        '-D',
        socks.path,
        '-o',
        'StreamLocalBindMask=0177',
        '-o',
        'StreamLocalBindUnlink=yes',
      ]);
      // No TCP listener of any kind: a SOCKS port on 127.0.0.1 would be every local user's way to the engine's host.
      expect(argv.filter((a) => ['-L', '-R', '-w', '-W'].includes(a))).toEqual([]);
      expect(argv.slice(argv.indexOf('-p'), argv.indexOf('-p') + 4)).toEqual(['-p', '2222', '-l', 'nexus']);
      expect(argv.slice(-2)).toEqual(['--', 'engine.example']);
      expect(knownHosts).toBe(`nexus-engine ssh-ed25519 ${hostKey.toString('base64')}\n`);
      expect(key).toContain('secret');
      expect(keyMode).toBe(0o600);
      // The key file went once ssh said it had signed in.
      expect(existsSync(argv[argv.indexOf('-i') + 1] ?? '')).toBe(false);
      expect(statSync(dirname(socks.path)).mode & 0o777).toBe(0o700);
    } finally {
      socks.dispose();
    }
  });

  it('connects through it by SOCKS5, and a connection its server would not open is refused', async () => {
    const socks = socksOf();
    try {
      const s = await socks.connect('10.203.0.2', 3000, 2000);
      s.write('through ssh');
      const got = await new Promise<string>((resolve) => s.once('data', (d: Buffer) => resolve(d.toString())));
      expect(got).toBe('through ssh');
      s.destroy();
      await expect(socks.connect('10.203.0.2', 1, 2000)).rejects.toMatchObject({ reason: 'refused' });
      expect(socks.starts).toBe(1);
    } finally {
      socks.dispose();
    }
  });

  it('leaves no ssh and no socket directory behind when disposed', async () => {
    const socks = socksOf();
    await socks.ready();
    const wrapper = socks.pid;
    expect(wrapper).toBeGreaterThan(0);
    socks.dispose();
    expect(existsSync(dirname(socks.path))).toBe(false);
    await waitFor(() => !existsSync(`/proc/${wrapper}`), 'the wrapper and its ssh to exit', 5000);
  });

  it('says a host key that is not the pinned one, and leaves the tunnels to ssh2 for a while after a failed start', async () => {
    process.env.FAKE_SSH_FAIL = '1';
    const socks = socksOf();
    try {
      await expect(socks.ready()).rejects.toMatchObject({ code: 'host_key_changed' });
      await expect(socks.ready()).rejects.toThrow(/tried again later/);
      expect(socks.starts).toBe(1);
    } finally {
      delete process.env.FAKE_SSH_FAIL;
      socks.dispose();
    }
  });
});
