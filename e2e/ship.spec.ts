import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startFixtureAgentNexus } from './fixtures/fixture-agent-nexus';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';

test('the session page shows the diff, cuts a large file with a note, shows it whole, and pushes the branch', async ({
  page,
}) => {
  test.setTimeout(900_000);
  const token = `ghp_${randomBytes(20).toString('hex')}`;
  const world = await startFixtureAgentNexus('ship', token);
  const { nexus, repo, name } = world;
  const rpc = nexus.rpc;
  try {
    await rpc('vault.init', {});
    const secret = await rpc<{ id: string }>('secrets.create', {
      name: 'git',
      kind: 'github',
      host: repo.host,
      value: token,
    });
    const containerId = await world.runningWorkspace({ secretId: secret.id });
    await rpc('sessions.create', { workspace: name, name: 'feature' });
    await expect
      .poll(async () => (await rpc<{ status: string }>('sessions.get', { session: `${name}/feature` })).status, {
        timeout: 60_000,
      })
      .toBe('running');
    // The agent's edits, for now a docker exec into the worktree: a commit with a large file, and an
    // uncommitted edit.
    execFileSync('docker', [
      'exec',
      '-w',
      '/workspace/.nexus-worktrees/feature',
      containerId,
      'sh',
      '-c',
      "git config user.email a@x && git config user.name Agent && seq 1 14000 > big.txt && echo '<b>hello</b>' > page.html && git add -A && git commit -qm 'Add big and page' && echo 'edited' >> README.md",
    ]);

    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    await sessions.open('feature');
    const changes = page.getByTestId('session-changes');
    await expect(changes.getByTestId('changes-summary')).toContainText('1 commit ahead of main');
    await expect(changes.getByTestId('changes-summary')).toContainText('3 files changed');
    await expect(changes.getByRole('list', { name: 'Commits' })).toContainText('Add big and page');
    const diff = changes.getByTestId('changes-diff');
    // Rendered by diff2html, file content escaped (no <b> element from the file).
    await expect(diff).toContainText('<b>hello</b>');
    await expect(diff.locator('b')).toHaveCount(0);
    await expect(diff).toContainText('edited');
    await expect(changes.getByTestId('changes-note')).toContainText('open a file to see it whole');
    await page.screenshot({ path: test.info().outputPath('ship-diff.png') });
    await changes.locator('tr[data-file="big.txt"]').getByRole('button', { name: 'Show whole file' }).click();
    await expect(diff).toContainText('14000', { timeout: 90_000 });
    await changes.getByRole('button', { name: 'Back to all files' }).click();

    await page.getByTestId('push-panel').getByRole('button', { name: 'Push branch' }).click();
    await expect(page.getByTestId('push-result')).toContainText('Pushed nexus/feature', { timeout: 60_000 });
    await expect(page.getByTestId('push-result')).toContainText('No pull-request link for this host');
    const head = repo.branchHead('nexus/feature');
    expect(head).not.toBeNull();
    await expect(page.getByTestId('push-result')).toContainText(head!.slice(0, 8));
    await page.screenshot({ path: test.info().outputPath('ship-pushed.png') });

    // Delete keeps the branch by default.
    await page.getByRole('button', { name: 'Delete session' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(sessions.row('feature')).toHaveCount(0);
    const branches = execFileSync('docker', ['exec', containerId, 'git', '-C', '/workspace', 'branch', '--list'], {
      encoding: 'utf8',
    });
    expect(branches).toContain('nexus/feature');
  } finally {
    await world.close();
  }
});
