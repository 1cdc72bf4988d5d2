import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultCore } from '../../../test/helpers/core';
import { ensureTestWorkerImage, realDocker, workspaceTestConfig } from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { startSecondEngine, type SecondEngine } from '../../../test/helpers/second-engine';
import { waitFor } from '../../../test/helpers/wait';
import type { Engine } from '../../../shared/contract';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { LABEL } from '../docker';

const op = operatorContext('internal');

// Issue 29, items 1 and 2: a workspace on a remote Docker engine reached over one SSH connection.
// Needs root: the test starts a second dockerd and an sshd on 127.0.0.1 (test/helpers/second-engine.ts)
// and removes both afterwards.
describe('a workspace on a remote engine over SSH', () => {
  let remote: SecondEngine;
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let env: Awaited<ReturnType<typeof vaultCore>>;
  let core: Core;
  let keyId: string;
  let engine: Engine;
  const name = `rmt-${randomBytes(3).toString('hex')}`;

  const engineNamed = async (n: string): Promise<Engine | undefined> =>
    (await core.dispatcher.call('engines.list', {}, op)).engines.find((e) => e.name === n);
  const execIn = (argv: string[]) => core.workspaces.runtime.exec(core.workspaces.runtime.info(name), argv);

  beforeAll(async () => {
    await ensureTestWorkerImage();
    remote = await startSecondEngine();
    repo = await serveGitRepo(null);
    env = await vaultCore(workspaceTestConfig());
    core = env.core;
    const secret = await core.dispatcher.call(
      'secrets.create',
      { name: 'remote-key', kind: 'ssh_private_key', host: '', value: remote.privateKey },
      op,
    );
    keyId = secret.id;
  }, 600_000);

  afterAll(async () => {
    // The second engine goes first and whatever happens: its daemons and files must not outlive the test.
    try {
      await Promise.race([
        core?.dispatcher.call('workspaces.delete', { workspace: name }, op).catch(() => undefined),
        new Promise((r) => setTimeout(r, 15_000)),
      ]);
    } finally {
      await remote?.dispose();
      await env?.cleanup();
      await repo?.close();
    }
  }, 120_000);

  it('adds the engine in two steps: first contact shows the host key and sends nothing, then the pinned key lets it in', async () => {
    const added = await core.dispatcher.call('engines.add', { name: 'big', url: remote.url, keySecretId: keyId }, op);
    expect(added.state).toBe('pending_host_key');
    expect(added.hostKeyFingerprint).toBe(remote.hostKey());
    expect(remote.logins()).toBe(0);
    await expect(
      core.dispatcher.call('engines.confirmHostKey', { engine: 'big', fingerprint: 'SHA256:not-the-key' }, op),
    ).rejects.toMatchObject({ code: 'conflict' });
    await core.dispatcher.call(
      'engines.confirmHostKey',
      { engine: 'big', fingerprint: added.hostKeyFingerprint ?? '' },
      op,
    );
    engine = await waitFor(async () => {
      const e = await engineNamed('big');
      return e?.state === 'reachable' && e.version ? e : null;
    }, 'the remote engine reachable');
    const info = (await remote.docker.info()) as { ServerVersion: string; NCPU: number; MemTotal: number };
    expect(engine).toMatchObject({
      kind: 'ssh',
      version: info.ServerVersion,
      cpus: info.NCPU,
      memoryBytes: info.MemTotal,
    });
  });

  it('reaches the same engine through docker system dial-stdio (the remote session’s DOCKER_HOST)', async () => {
    const added = await core.dispatcher.call(
      'engines.add',
      { name: 'big-stdio', url: remote.dialStdioUrl, keySecretId: keyId },
      op,
    );
    await core.dispatcher.call(
      'engines.confirmHostKey',
      { engine: 'big-stdio', fingerprint: added.hostKeyFingerprint ?? '' },
      op,
    );
    const e = await waitFor(async () => {
      const x = await engineNamed('big-stdio');
      return x?.state === 'reachable' && x.version ? x : null;
    }, 'the dial-stdio engine reachable');
    expect(e.version).toBe(engine.version);
    await core.dispatcher.call('engines.remove', { engine: 'big-stdio' }, op);
    expect(await engineNamed('big-stdio')).toBeUndefined();
  });

  it('creates a workspace on the remote engine: its container and volume are there and not on the local engine', async () => {
    const created = await core.dispatcher.call('workspaces.create', { name, repoUrl: repo.url, engine: 'big' }, op);
    expect(created.engine).toBe(engine.id);
    const ws = await waitFor(
      async () => {
        const w = await core.dispatcher.call('workspaces.get', { workspace: name }, op);
        if (w.status === 'error') throw new Error(w.reason ?? 'error');
        return w.status === 'running' ? w : null;
      },
      'the remote workspace running',
      600_000,
    );
    expect(ws.engine).toBe(engine.id);
    const onRemote = await remote.docker.listContainers({ filters: { label: [`${LABEL.workspaceId}=${ws.id}`] } });
    expect(onRemote.map((c) => c.Id)).toEqual([ws.containerId]);
    const onLocal = await realDocker().listContainers({
      all: true,
      filters: { label: [`${LABEL.workspaceId}=${ws.id}`] },
    });
    expect(onLocal).toEqual([]);
    expect((await engineNamed('big'))?.runningWorkspaces).toBe(1);
    await expect(core.dispatcher.call('engines.remove', { engine: 'big' }, op)).rejects.toMatchObject({
      code: 'conflict',
    });
  }, 600_000);

  it('runs commands in the remote workspace: the clone is there and its address is from the remote engine’s pool', async () => {
    const r = await execIn(['sh', '-c', 'git -C /workspace log --oneline | wc -l; hostname -i']);
    expect(r.exitCode).toBe(0);
    const [commits, address] = r.stdout.trim().split('\n');
    expect(Number(commits)).toBeGreaterThan(0);
    expect(address).toMatch(/^10\.201\./);
  });

  it('mounts the pinned agent CLI on the remote engine as a volume, empty until the first session of its kind', async () => {
    const ws = core.workspaces.get(name);
    const inspect = await remote.docker.getContainer(ws.containerId ?? '').inspect();
    const cli = inspect.Mounts.find((m) => m.Destination === '/opt/nexus/agent');
    if (!process.env.NEXUS_AGENT_CLI_DIR) return expect(cli).toBeUndefined();
    expect(cli).toMatchObject({ Type: 'volume', RW: false });
    // No session has run here: nothing was copied (remote-session.docker.test.ts runs one, which fills it).
    expect((await execIn(['sh', '-c', 'ls -A /opt/nexus/agent | wc -l'])).stdout.trim()).toBe('0');
    const volumes = (await remote.docker.listVolumes()).Volumes.map((v) => v.Name);
    expect(volumes).toContain(cli?.Name);
    expect(volumes).not.toContain(`${cli?.Name}-complete`);
  });

  it('opens a terminal in the remote workspace: keystrokes in, the screen out', async () => {
    const tty = await core.workspaces.runtime.attach(core.workspaces.runtime.info(name), ['sh'], {
      tty: true,
      size: { cols: 80, rows: 24 },
    });
    let screen = '';
    tty.output.on('data', (d: Buffer) => (screen += d.toString('utf8')));
    tty.write('echo remote-$((40 + 2))\r');
    await waitFor(() => screen.includes('remote-42'), 'the command echoed on the terminal');
    tty.close();
  });

  it('reconnects after the SSH connection is cut, on one new connection', async () => {
    // Core's own connection is counted: the leaf's OpenSSH forward (a login of its own) is cut too and comes back.
    const before = (await engineNamed('big'))?.sshConnections ?? 0;
    const logins = remote.logins();
    expect(before).toBeGreaterThan(0);
    remote.cutConnections();
    const r = await waitFor(async () => {
      const x = await execIn(['echo', 'back']);
      return x.exitCode === 0 ? x : null;
    }, 'an exec after the cut');
    expect(r.stdout.trim()).toBe('back');
    await Promise.all([execIn(['true']), execIn(['true']), execIn(['true'])]);
    expect((await engineNamed('big'))?.sshConnections).toBe(before + 1);
    expect(remote.logins()).toBeGreaterThan(logins);
  });

  it('reconciles the workspace when the remote daemon restarts, and starts it again', async () => {
    await remote.restartDaemon();
    await waitFor(
      async () => (await core.dispatcher.call('workspaces.get', { workspace: name }, op)).status === 'stopped',
      'the workspace reconciled as stopped',
      60_000,
    );
    const started = await waitFor(
      () => core.dispatcher.call('workspaces.start', { workspace: name }, op).catch(() => null),
      'the workspace started again',
      60_000,
    );
    expect(started.status).toBe('running');
    expect((await execIn(['echo', 'ok'])).stdout.trim()).toBe('ok');
  }, 120_000);

  it('refuses the engine when its host key changes, saying why', async () => {
    const pinned = engine.hostKeyFingerprint ?? '';
    await remote.rotateHostKey();
    remote.cutConnections();
    // A call racing the cut may fail as unavailable first; every call on the new connection is refused for the key.
    const seen: string[] = [];
    const refused = await waitFor(
      () =>
        execIn(['true']).then(
          () => null,
          (e: unknown) => {
            const err = e as { code?: string; message?: string };
            seen.push(err.code ?? '?');
            return err.code === 'host_key_changed' ? err : null;
          },
        ),
      'an exec refused for the host key',
    );
    expect(seen.filter((c) => c !== 'host_key_changed' && c !== 'docker_unavailable')).toEqual([]);
    expect(refused.message).toContain(pinned);
    expect(refused.message).toContain(remote.hostKey());
    const e = await waitFor(async () => {
      const x = await engineNamed('big');
      return x?.state === 'host_key_changed' ? x : null;
    }, 'the engine marked host_key_changed');
    expect(e.reason).toContain(remote.hostKey());
    await expect(core.dispatcher.call('workspaces.stop', { workspace: name }, op)).rejects.toMatchObject({
      code: 'host_key_changed',
    });
  }, 60_000);
});
