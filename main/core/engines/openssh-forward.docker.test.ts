import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/free-port';
import { waitFor } from '../../../test/helpers/wait';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { onPath } from './programs';
import { knownHostsLine, OpenSshForward } from './openssh-forward';

const log = createLogger({ redactor: new Redactor() });
const blobOf = (pubFile: string): Buffer => Buffer.from(readFileSync(pubFile, 'utf8').split(' ')[1] ?? '', 'base64');

/** One message to the forwarded port on the remote host's loopback, echoed back by core's side. */
async function echoThrough(port: number, text: string): Promise<string> {
  const s = tcpConnect({ host: '127.0.0.1', port });
  await new Promise<void>((ok, fail) => s.once('connect', ok).once('error', fail));
  s.write(text);
  const got = await new Promise<string>((ok, fail) => {
    let b = '';
    s.on('data', (d: Buffer) => ((b += d.toString()), b.length >= text.length && ok(b)));
    s.once('error', fail);
  });
  s.destroy();
  return got;
}

// The leaf link's forward as OpenSSH's own `ssh -N -R`. Needs root: Debian's sshd on 127.0.0.1
// (own host key and config, root's key authorized), killed and removed afterwards.
describe('the leaf link forwarded by OpenSSH', () => {
  const dir = mkdtempSync('/tmp/nxf-');
  const tmp = join(dir, 'tmp');
  let sshd: ChildProcess;
  let echo: Server;
  let echoPort = 0;
  let sshPort = 0;
  let sshdLog = '';
  const signIns = (): number => (sshdLog.match(/Accepted publickey/g) ?? []).length;
  const oldTmp = process.env.TMPDIR;
  const forwards: OpenSshForward[] = [];
  const forward = (hostKey: Buffer) => {
    const f = new OpenSshForward([{ host: '127.0.0.1', port: echoPort }], {
      binary: onPath('ssh'),
      host: '127.0.0.1',
      port: sshPort,
      username: 'root',
      privateKey: () => Promise.resolve(readFileSync(join(dir, 'client'), 'utf8')),
      hostKey,
      log,
    });
    forwards.push(f);
    return f;
  };

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('this test needs root (it starts sshd)');
    mkdirSync(tmp);
    process.env.TMPDIR = tmp; // where the forward puts its key file: looked at below
    for (const k of ['host', 'client', 'other'])
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, k)]);
    writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')), { mode: 0o600 });
    sshPort = await freePort();
    writeFileSync(
      join(dir, 'sshd_config'),
      [
        `Port ${sshPort}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(dir, 'host')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        'PasswordAuthentication no',
        'UsePAM no',
        'PermitRootLogin prohibit-password',
        'StrictModes no',
        'AllowTcpForwarding yes',
        '',
      ].join('\n'),
    );
    mkdirSync('/run/sshd', { recursive: true });
    sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    sshd.stderr!.on('data', (d: Buffer) => (sshdLog += d.toString()));
    await waitFor(() => /Server listening/.test(sshdLog), 'sshd to listen', 20_000);
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoPort = (echo.address() as { port: number }).port;
  });

  afterAll(() => {
    for (const f of forwards) f.dispose();
    echo?.close();
    sshd?.kill();
    process.env.TMPDIR = oldTmp;
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries a message from the remote host’s loopback to core and back, its key file gone once signed in', async () => {
    const f = forward(blobOf(join(dir, 'host.pub')));
    const [port] = await f.start();
    expect(port).toBeGreaterThan(0);
    expect(await echoThrough(port!, 'PUB nexus.hooks.x 5\r\nhello\r\n')).toBe('PUB nexus.hooks.x 5\r\nhello\r\n');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('refuses a host whose key is not the pinned one before signing in, saying why', async () => {
    const before = signIns();
    const f = forward(blobOf(join(dir, 'other.pub')));
    await expect(f.start()).rejects.toMatchObject({ code: 'host_key_changed' });
    expect(signIns()).toBe(before);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('comes back on the same port after its connection is cut, and leaves no ssh behind when disposed', async () => {
    const f = forward(blobOf(join(dir, 'host.pub')));
    const [port] = await f.start();
    const wrapper = f.pid!;
    const sshOf = (): number[] => {
      try {
        return execFileSync('pgrep', ['-P', String(wrapper)], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        return [];
      }
    };
    expect(sshOf().length).toBeGreaterThan(0);
    // What a dropped link looks like from here: sshd's side of this connection gone.
    execFileSync('pkill', ['-KILL', '-P', String(sshd.pid)]);
    await waitFor(() => f.starts === 2 && f.pid !== null && f.pid !== wrapper, 'the forward to start again', 20_000);
    await waitFor(
      () =>
        echoThrough(port!, 'again').then(
          (t) => t === 'again',
          () => false,
        ),
      'the same port to carry again',
      20_000,
    );
    const again = f.pid!;
    const ssh = execFileSync('pgrep', ['-P', String(again)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    f.dispose();
    await waitFor(() => ssh.every((p) => !existsSync(`/proc/${p}`)), 'ssh to exit', 10_000);
  });

  it('writes known_hosts from the pinned key’s blob: its type and the key, nothing else', () => {
    const line = knownHostsLine('nexus-engine', blobOf(join(dir, 'host.pub')));
    const pub = readFileSync(join(dir, 'host.pub'), 'utf8').split(' ');
    expect(line).toBe(`nexus-engine ${pub[0]} ${pub[1]}\n`);
    expect(() => knownHostsLine('x', Buffer.from('garbage'))).toThrow(/no readable type/);
  });
});
