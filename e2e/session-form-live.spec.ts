import { randomBytes } from 'node:crypto';
import { removeWorkspaceContainers } from './fixtures/containers';
import { expect, startNexus, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';
import { ensureTestWorkerImage, testBaseImage } from '../test/helpers/docker';
import { serveGitRepo } from '../test/helpers/git-http-server';

test('a workspace created elsewhere appears in the open session form without a reload', async ({ page }) => {
  test.setTimeout(600_000);
  await ensureTestWorkerImage();
  const repo = await serveGitRepo(null);
  const nexus = await startNexus({ NEXUS_WORKER_BASE_IMAGE: testBaseImage() });
  const first = `e2e-${randomBytes(3).toString('hex')}`;
  const second = `e2e-${randomBytes(3).toString('hex')}`;
  try {
    await nexus.rpc('workspaces.create', { name: first, repoUrl: repo.url });
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    // Straight to Sessions: the Workspaces page (which used to hold the live hook) is never opened.
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    await expect(await sessions.workspaceChoices()).toHaveText([first]);

    // Another client (the API, as the CLI or an MCP agent would) creates a workspace.
    await nexus.rpc('workspaces.create', { name: second, repoUrl: repo.url });
    await expect(await sessions.workspaceChoices()).toHaveText([first, second].sort());
    const requests: string[] = [];
    page.on('request', (r) => void (r.url().includes('/api/rpc/workspaces.list') && requests.push(r.url())));

    // And deletes the first: it leaves the picker too, still without a reload or a refetch.
    await nexus.rpc('workspaces.delete', { workspace: first });
    await expect(await sessions.workspaceChoices()).toHaveText([second], { timeout: 120_000 });
    expect(requests).toEqual([]);
  } finally {
    removeWorkspaceContainers(first);
    removeWorkspaceContainers(second);
    await nexus.stop();
    await repo.close();
  }
});
