import { randomBytes } from 'node:crypto';
import { removeWorkspaceContainers } from './fixtures/containers';
import { expect, startNexus, test } from './fixtures/nexus';
import { AccessPage } from './pages/access-page';
import { AppPage } from './pages/app-page';
import { WorkspacesPage } from './pages/workspaces-page';
import { ensureTestWorkerImage, testBaseImage } from '../test/helpers/docker';
import { serveGitRepo } from '../test/helpers/git-http-server';

test('gives a workspace delegation in the form, shows its token in Settings → Access, and takes it back', async ({
  page,
}) => {
  test.setTimeout(600_000);
  await ensureTestWorkerImage();
  const repo = await serveGitRepo(null);
  const nexus = await startNexus({ NEXUS_WORKER_BASE_IMAGE: testBaseImage() });
  const name = `e2e-delegation-${randomBytes(3).toString('hex')}`;
  const tokenName = `workspace ${name} (delegated)`;
  try {
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Workspaces');
    const workspaces = new WorkspacesPage(page);

    // Vault is never silent: choosing it shows what it gives away.
    await workspaces.newButton.click();
    const dialog = page.getByRole('dialog', { name: 'New workspace' });
    await expect(dialog.getByLabel('Delegation')).toHaveValue('none');
    await dialog.getByLabel('Delegation').selectOption('vault');
    await expect(dialog.getByRole('alert')).toContainText('open the vault');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await workspaces.create(name, repo.url, undefined, { delegation: 'write' });
    await expect(workspaces.status(name)).toHaveText('running', { timeout: 120_000 });
    await expect(workspaces.row(name).getByTestId('workspace-delegation')).toHaveText('delegated: write');

    const access = new AccessPage(page);
    await access.open();
    await expect(access.token(tokenName)).toContainText('write');
    await expect(access.token(tokenName)).toContainText('active');

    await app.goTo('Workspaces');
    await workspaces.setDelegation(name, 'none', 'write');
    await expect(workspaces.row(name).getByTestId('workspace-delegation')).toHaveCount(0);
    await access.open();
    await expect(access.token(tokenName)).toContainText('revoked');

    await app.goTo('Workspaces');
    await workspaces.delete(name);
  } finally {
    removeWorkspaceContainers(name);
    await nexus.stop();
    await repo.close();
  }
});
