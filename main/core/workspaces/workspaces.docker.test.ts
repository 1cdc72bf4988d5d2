import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { operatorContext } from '../handlers';
import { repoRoot, testCore } from '../../../test/helpers/core';
import { ensureTestWorkerImage, inspectJson, realDocker, workspaceTestConfig } from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { waitFor } from '../../../test/helpers/wait';
import type { Core } from '..';

const op = operatorContext('internal');
const dockerExec = (id: string, ...cmd: string[]): string =>
  execFileSync('docker', ['exec', id, ...cmd], { encoding: 'utf8' });

describe('workspaces on a real Docker engine', () => {
  const token = `tok${randomBytes(20).toString('hex')}`;
  const name = `wst-${randomBytes(3).toString('hex')}`;
  const seen: EventMessage[] = [];
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  let secretId: string;
  let containerId: string;

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(token);
    env = await testCore(workspaceTestConfig());
    core = env.core;
    // The real vault (OS keychain under scripts/with-keychain.sh) holds the token, bound to the repository's host.
    await core.dispatcher.call('vault.init', {}, op);
    secretId = (
      await core.dispatcher.call(
        'secrets.create',
        { name: 'test repo token', kind: 'github', host: repo.host, value: token },
        op,
      )
    ).id;
    core.events.subscribe((e) => seen.push(e));
  }, 900_000);

  afterAll(async () => {
    await core.dispatcher.call('workspaces.delete', { workspace: name }, op).catch(() => undefined);
    await env.cleanup();
    await repo.close();
  });

  it('returns at once with status creating, then clones through the credential helper and runs', async () => {
    const created = await core.dispatcher.call('workspaces.create', { name, repoUrl: repo.url, secretId }, op);
    expect(created.status).toBe('creating');
    await core.workspaces.idle();
    const ws = await core.dispatcher.call('workspaces.get', { workspace: name }, op);
    expect(ws.reason).toBeNull();
    expect(ws.status).toBe('running');
    containerId = ws.containerId ?? '';
    expect(repo.rejectedRequests()).toBeGreaterThan(0); // git first asked without credentials ...
    expect(repo.authorizedRequests()).toBeGreaterThan(0); // ... and then with the token from the helper
    expect(dockerExec(containerId, 'cat', '/workspace/README.md')).toContain('served over HTTP');
    const progress = seen.filter((e) => e.name === 'progress').map((e) => (e.payload as { step: string }).step);
    expect(progress).toContain('Cloning the repository');
    expect(progress.at(-1)).toBe('Running');
    // Each step names the workspace it is about as a field (the UI reads it, not the operation id).
    const about = seen
      .filter((e) => e.name === 'progress')
      .map((e) => (e.payload as { workspaceId?: string }).workspaceId);
    expect(new Set(about)).toEqual(new Set([created.id]));
  }, 300_000);

  it('leaves the token nowhere: not in docker inspect, ps, the filesystem, the image or the app log', async () => {
    expect(inspectJson(containerId)).not.toContain(token);
    expect(dockerExec(containerId, 'ps', 'auxwwe')).not.toContain(token);
    expect(dockerExec(containerId, 'ls', '-A', '/run/nexus')).toBe('');
    const grep = execFileSync(
      'docker',
      [
        'exec',
        containerId,
        'sh',
        '-c',
        `grep -rl "$0" /workspace /home /tmp /run /etc 2>/dev/null || true`,
        token.slice(0, 24),
      ],
      { encoding: 'utf8' },
    );
    expect(grep).toBe('');
    const image = (await realDocker().getContainer(containerId).inspect()).Image;
    expect(execFileSync('docker', ['image', 'inspect', image], { encoding: 'utf8' })).not.toContain(token);
    expect(execFileSync('docker', ['history', '--no-trunc', image], { encoding: 'utf8' })).not.toContain(token);
    const log = readFileSync(join(env.dataDir, 'logs', 'nexus.log'), 'utf8');
    expect(log).toContain('workspace created');
    expect(log).not.toContain(token);
    expect(JSON.stringify(seen)).not.toContain(token);
  });

  it('runs the container hardened, labelled and without the Docker socket', async () => {
    const info = await realDocker().getContainer(containerId).inspect();
    expect(info.Config.User).toBe('1000:1000');
    expect(info.HostConfig.Privileged).toBe(false);
    expect(info.HostConfig.CapDrop).toEqual(['ALL']);
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
    expect(info.HostConfig.Memory).toBe(512 * 1024 ** 2);
    expect(info.HostConfig.PidsLimit).toBe(256);
    expect(info.HostConfig.NetworkMode).toBe('nexus');
    expect(JSON.stringify(info.Mounts)).not.toContain('docker.sock');
    expect(info.Config.Labels['nexus.managed']).toBe('1');
    expect(info.Config.Labels['nexus.workspace.name']).toBe(name);
    expect(dockerExec(containerId, 'id', '-u').trim()).toBe('1000');
    // The platform-tools bridge is in the image exactly when it was bundled (npm run build) before.
    const bundled = existsSync(join(repoRoot, 'dist', 'worker', 'nexus-mcp.cjs'));
    expect(dockerExec(containerId, 'sh', '-c', 'test -x /opt/nexus/bin/nexus-mcp && echo yes || echo no').trim()).toBe(
      bundled ? 'yes' : 'no',
    );
  });

  it('refuses a second workspace with the same name and changes nothing', async () => {
    const before = await core.dispatcher.call('workspaces.list', {}, op);
    await expect(
      core.dispatcher.call('workspaces.create', { name, repoUrl: repo.url, secretId }, op),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(await core.dispatcher.call('workspaces.list', {}, op)).toEqual(before);
  });

  it('shows a container stopped outside Nexus as stopped, through the events stream', async () => {
    const changed = waitFor(
      () =>
        seen.some(
          (e) =>
            e.name === 'workspaces.changed' &&
            (e.payload as { workspace: { status: string } | null }).workspace?.status === 'stopped',
        ),
      'a stopped event',
    );
    execFileSync('docker', ['stop', '-t', '1', containerId]);
    await changed;
    expect((await core.dispatcher.call('workspaces.get', { workspace: name }, op)).status).toBe('stopped');
  }, 60_000);

  it('starts again with the token re-injected through stdin, fetching a commit pushed meanwhile', async () => {
    const head = repo.commit('NEWS.md', 'pushed while stopped\n');
    const rejectedBefore = repo.rejectedRequests();
    const authorizedBefore = repo.authorizedRequests();
    const started = await core.dispatcher.call('workspaces.start', { workspace: name }, op);
    expect(started.status).toBe('running');
    expect(started.reason).toBeNull();
    expect(repo.rejectedRequests()).toBeGreaterThan(rejectedBefore);
    expect(repo.authorizedRequests()).toBeGreaterThan(authorizedBefore);
    expect(dockerExec(containerId, 'git', '-C', '/workspace', 'rev-parse', 'origin/main').trim()).toBe(head);
    expect(dockerExec(containerId, 'ls', '-A', '/run/nexus')).toBe('');
    expect(inspectJson(containerId)).not.toContain(token);
  }, 60_000);

  it('stops through Nexus and the engine agrees', async () => {
    const stopped = await core.dispatcher.call('workspaces.stop', { workspace: name }, op);
    expect(stopped.status).toBe('stopped');
    expect((await realDocker().getContainer(containerId).inspect()).State.Running).toBe(false);
  }, 60_000);

  it('shows a container removed outside Nexus as missing, and delete then removes the volume and the row', async () => {
    const ws = await core.dispatcher.call('workspaces.get', { workspace: name }, op);
    execFileSync('docker', ['rm', '-f', containerId]);
    await waitFor(
      async () => (await core.dispatcher.call('workspaces.get', { workspace: name }, op)).status === 'missing',
      'status missing',
    );
    const volume = core.workspaces.store.find(ws.id)?.volume ?? '';
    expect(execFileSync('docker', ['volume', 'ls', '-q'], { encoding: 'utf8' })).toContain(volume);
    await expect(core.dispatcher.call('workspaces.delete', { workspace: name }, op)).resolves.toEqual({
      deleted: true,
      id: ws.id,
    });
    expect(execFileSync('docker', ['volume', 'ls', '-q'], { encoding: 'utf8' })).not.toContain(volume);
    expect((await core.dispatcher.call('workspaces.list', {}, op)).workspaces).toEqual([]);
    await expect(core.dispatcher.call('workspaces.get', { workspace: name }, op)).rejects.toMatchObject({
      code: 'not_found',
    });
  }, 60_000);
});
