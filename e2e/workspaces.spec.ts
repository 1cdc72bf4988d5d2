import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { removeWorkspaceContainers, workspaceContainers } from './fixtures/containers';
import { expect, startNexus, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { WorkspacesPage } from './pages/workspaces-page';
import { ensureTestWorkerImage, testBaseImage } from '../test/helpers/docker';
import { serveGitRepo } from '../test/helpers/git-http-server';
import { ownerIdFor } from '../main/core/docker';

test('creates a workspace from the UI with Codex as its default agent, sees it running, stops and starts it, then deletes it', async ({
  page,
}) => {
  // The first run on a machine builds the worker image (cached by content hash afterwards).
  test.setTimeout(900_000);
  await ensureTestWorkerImage();
  const repo = await serveGitRepo(null);
  // Host networking (this engine has no bridge) and the offline base image, through the documented env vars.
  const nexus = await startNexus({ NEXUS_WORKER_BASE_IMAGE: testBaseImage() });
  const name = `e2e-${randomBytes(3).toString('hex')}`;
  try {
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await expect(app.status('docker')).toContainText('Docker: available');
    await app.goTo('Workspaces');
    const workspaces = new WorkspacesPage(page);
    await expect(workspaces.dockerBanner).toHaveCount(0);

    await workspaces.create(name, repo.url, undefined, { defaultAgent: 'Codex' });
    await expect(workspaces.row(name)).toBeVisible();
    // The default agent picked in the dialog shows on the row (its sessions run Codex unless they pick another).
    await expect(workspaces.row(name).getByTestId('workspace-agent')).toHaveText('agent: Codex');
    await expect(workspaces.status(name)).toHaveText('running', { timeout: 120_000 });
    const ids = workspaceContainers(name, { running: true });
    expect(ids).not.toBe('');
    await page.screenshot({ path: test.info().outputPath('workspace-running.png') });

    await workspaces.stop(name);
    await workspaces.start(name);
    await workspaces.delete(name);
    const left = workspaceContainers(name);
    expect(left).toBe('');
  } finally {
    removeWorkspaceContainers(name);
    await nexus.stop();
    await repo.close();
  }
});

test('creates a workspace whose repository needs a token, picking the vault secret in the dialog', async ({ page }) => {
  test.setTimeout(900_000);
  await ensureTestWorkerImage();
  const token = `tok${randomBytes(20).toString('hex')}`;
  const repo = await serveGitRepo(token);
  const nexus = await startNexus({ NEXUS_WORKER_BASE_IMAGE: testBaseImage() });
  const name = `e2e-${randomBytes(3).toString('hex')}`;
  const rpc = async (op: string, input: unknown): Promise<unknown> => {
    const res = await fetch(`${nexus.url}/api/rpc/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${nexus.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    expect(res.status).toBe(200);
    return res.json();
  };
  try {
    await rpc('vault.init', {});
    await rpc('secrets.create', { name: 'repo token', kind: 'github', host: repo.host, value: token });
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Workspaces');
    const workspaces = new WorkspacesPage(page);
    await workspaces.create(name, repo.url, `repo token (github, ${repo.host}, …${token.slice(-4)})`);
    await expect(workspaces.status(name)).toHaveText('running', { timeout: 120_000 });
    expect(repo.authorizedRequests()).toBeGreaterThan(0);
    const id = workspaceContainers(name, { running: true });
    expect(execFileSync('docker', ['inspect', id], { encoding: 'utf8' })).not.toContain(token);
    expect(await page.content()).not.toContain(token);
    await workspaces.delete(name);
  } finally {
    removeWorkspaceContainers(name);
    await nexus.stop();
    await repo.close();
  }
});

test('lists a labelled container without a workspace as an orphan and removes it, leaving foreign containers alone', async ({
  page,
}) => {
  test.setTimeout(900_000);
  const image = await ensureTestWorkerImage();
  const nexus = await startNexus({ NEXUS_WORKER_BASE_IMAGE: testBaseImage() });
  const suffix = randomBytes(3).toString('hex');
  const orphan = `nexus-e2e-orphan-${suffix}`;
  const foreign = `nexus-e2e-foreign-${suffix}`;
  const create = (name: string, labels: string[]): string =>
    execFileSync(
      'docker',
      ['create', '--name', name, '--network', 'nexus', ...labels.flatMap((l) => ['--label', l]), image],
      { encoding: 'utf8' },
    ).trim();
  try {
    create(orphan, [
      'nexus.managed=1',
      `nexus.owner=${ownerIdFor(nexus.dataDir)}`,
      `nexus.workspace.id=gone-${suffix}`,
    ]);
    const foreignId = create(foreign, [
      'nexus.managed=1',
      `nexus.owner=${ownerIdFor('/another/data-dir')}`,
      `nexus.workspace.id=x-${suffix}`,
    ]);
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Workspaces');
    const workspaces = new WorkspacesPage(page);
    await expect(workspaces.orphan(orphan)).toBeVisible();
    await expect(workspaces.orphan(foreign)).toHaveCount(0);
    await workspaces.removeOrphan(orphan);
    expect(execFileSync('docker', ['ps', '-aq', '--filter', `name=${orphan}`], { encoding: 'utf8' }).trim()).toBe('');
    expect(execFileSync('docker', ['inspect', '-f', '{{.Id}}', foreignId], { encoding: 'utf8' }).trim()).toBe(
      foreignId,
    );
  } finally {
    execFileSync('sh', ['-c', `docker rm -f ${orphan} ${foreign} >/dev/null 2>&1 || true`]);
    await nexus.stop();
  }
});
