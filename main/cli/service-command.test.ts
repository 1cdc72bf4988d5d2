import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/temp-dir';
import { serviceCommand, unitPath, type ServiceDeps } from './service-command';

const home = tempDir('nexus-service-home-');
const app = tempDir('nexus-service-app-');
mkdirSync(join(app.path, 'dist'), { recursive: true });
writeFileSync(join(app.path, 'dist', 'cli.js'), '');
afterAll(() => {
  home.remove();
  app.remove();
});

const collect = (): { stream: PassThrough; text(): string } => {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
};

const run = async (args: string[], over: Partial<ServiceDeps> = {}) => {
  const out = collect();
  const err = collect();
  const deps: ServiceDeps = {
    appRoot: app.path,
    defaultDataDir: join(home.path, '.local', 'share', 'nexus-desktop'),
    defaultPort: 4780,
    home: home.path,
    platform: 'linux',
    node: process.execPath,
    nodeVersion: process.version,
    env: { PATH: '/usr/bin:/bin', NEXUS_DOCKER_NETWORK: 'host', NEXUS_TOKEN: 'nxs_w_not-for-a-unit-file' },
    uid: process.getuid?.() ?? 0,
    out: out.stream,
    err: err.stream,
    ...over,
  };
  const code = await serviceCommand(args, deps);
  return { code, out: out.text(), err: err.text(), unit: () => readFileSync(unitPath(deps), 'utf8') };
};

/** systemd's own check of a user unit (Debian's systemd package): exit code and everything it printed. */
function systemdVerify(file: string): { status: number | null; output: string } {
  const runtime = tempDir('nexus-xdg-runtime-');
  chmodSync(runtime.path, 0o700);
  try {
    const r = spawnSync('systemd-analyze', ['--user', 'verify', file], {
      encoding: 'utf8',
      env: { ...process.env, XDG_RUNTIME_DIR: runtime.path },
    });
    return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
  } finally {
    runtime.remove();
  }
}

describe('nexus service install / uninstall', () => {
  it('writes a user unit systemd accepts, running this Node on dist/cli.js with the data dir and port', async () => {
    const dataDir = join(home.path, 'my data 100%');
    const r = await run(['install', '--data-dir', dataDir, '--port', '4790']);
    expect(r.code).toBe(0);
    const file = join(home.path, '.config', 'systemd', 'user', 'nexus.service');
    expect(existsSync(file)).toBe(true);
    expect(systemdVerify(file)).toEqual({ status: 0, output: '' });
    const unit = r.unit();
    expect(unit).toContain(
      `ExecStart="${process.execPath}" "${app.path}/dist/cli.js" "serve" "--port" "4790" "--data-dir" "${home.path}/my data 100%%"`,
    );
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^WantedBy=default.target$/m);
    expect(unit).toContain('Environment="NEXUS_DOCKER_NETWORK=host"');
    expect(unit).toContain(`Environment="PATH=${join(process.execPath, '..')}:/usr/bin:/bin"`);
    expect(unit).not.toContain('nxs_w_');
    expect(r.err).toContain('NEXUS_TOKEN');
    expect(r.out).toContain('systemctl --user enable --now nexus');
    expect(r.out).toContain('loginctl enable-linger $USER');
  });

  it('systemd refuses a unit naming a Node that is not there (the check can fail)', async () => {
    await run(['install'], { node: '/nonexistent/node' });
    const { status, output } = systemdVerify(join(home.path, '.config', 'systemd', 'user', 'nexus.service'));
    expect(status).not.toBe(0);
    expect(output).toContain('/nonexistent/node');
  });

  it('hands a 0600 vault key file over as the nexus-vault-key credential and refuses one others can read', async () => {
    const key = join(home.path, 'vault.key');
    writeFileSync(key, 'k'.repeat(64), { mode: 0o644 });
    chmodSync(key, 0o644);
    await expect(run(['install', '--vault-key-file', key])).rejects.toThrow(/mode 644: others can read it/);
    chmodSync(key, 0o600);
    const r = await run(['install', '--vault-key-file', key]);
    expect(r.unit()).toMatch(new RegExp(`^LoadCredential=nexus-vault-key:${key}$`, 'm'));
    expect(r.unit()).not.toContain('k'.repeat(64));
    expect(r.out).toContain('Replaced');
    expect(systemdVerify(join(home.path, '.config', 'systemd', 'user', 'nexus.service')).status).toBe(0);
  });

  it('refuses to install a service on a Node older than 24 and says how to get the pinned one', async () => {
    await expect(run(['install'], { nodeVersion: 'v20.20.2' })).rejects.toThrow(/needs 24 or newer.*node-env\.sh/);
  });

  it('on macOS prints a launchd agent instead of writing a systemd unit', async () => {
    const r = await run(['install', '--port', '4791'], { platform: 'darwin' });
    expect(r.out).toContain('<key>Label</key><string>dev.nexus.serve</string>');
    expect(r.out).toContain(`<string>${process.execPath}</string>`);
    expect(r.out).toContain('<string>4791</string>');
    expect(r.err).toContain('launchctl bootstrap');
  });

  it('uninstall stops the service, removes the unit and its enablement, and says so', async () => {
    const r0 = await run(['install']);
    expect(r0.code).toBe(0);
    const file = join(home.path, '.config', 'systemd', 'user', 'nexus.service');
    const wants = join(home.path, '.config', 'systemd', 'user', 'default.target.wants');
    mkdirSync(wants, { recursive: true });
    symlinkSync(file, join(wants, 'nexus.service'));
    const calls: string[][] = [];
    const r = await run(['uninstall'], { systemctl: async (args) => (calls.push(args), null) });
    expect(calls).toEqual([['disable', '--now', 'nexus'], ['daemon-reload']]);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(wants, 'nexus.service'))).toBe(false);
    expect(r.out).toContain('stopped and disabled');
    const again = await run(['uninstall'], { systemctl: async () => 'unreachable' });
    expect(again.out).toContain('No Nexus service is installed');
  });
});
