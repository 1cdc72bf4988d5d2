import { randomBytes } from 'node:crypto';
import { callPlatformTool, fireHook, fixtureRecords } from '../test/helpers/agent-fixture';
import { workspaceContainers } from './fixtures/containers';
import { startFixtureAgentNexus } from './fixtures/fixture-agent-nexus';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { ReviewPage } from './pages/review-page';
import { SessionsPage } from './pages/sessions-page';
import { SettingsPage } from './pages/settings-page';
import { WorkspacesPage } from './pages/workspaces-page';

// The whole operator flow in the UI, against real Docker, NATS, keychain and git; the agent is the
// fixture (no model access here). Screenshots of each page are kept as test artifacts.
test('the operator flow: vault, secret, workspace, three sessions, a permission prompt, a message, clean-up', async ({
  page,
}) => {
  test.setTimeout(900_000);
  const token = `ghp_${randomBytes(20).toString('hex')}`;
  const world = await startFixtureAgentNexus('flow', token);
  const { nexus, repo, name } = world;
  const shot = (file: string) => page.screenshot({ path: test.info().outputPath(file), fullPage: true });
  const rpc = nexus.rpc;

  try {
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);

    // Vault and the provider token.
    const settings = new SettingsPage(page);
    await settings.open();
    await settings.initVault('a long recovery passphrase for the flow');
    await expect(settings.vaultState()).toHaveText('unlocked');
    await settings.addSecret({ name: 'git token', kind: 'GitHub', host: repo.host, value: token });
    await expect(settings.secret('git token')).toContainText(token.slice(-4));
    await shot('settings.png');

    // A workspace cloned with that token.
    await app.goTo('Workspaces');
    const workspaces = new WorkspacesPage(page);
    await workspaces.create(name, repo.url, `git token (github, ${repo.host}, …${token.slice(-4)})`);
    await expect(workspaces.status(name)).toHaveText('running', { timeout: 180_000 });
    expect(repo.authorizedRequests()).toBeGreaterThan(0);
    await shot('workspaces.png');
    const containerId = await world.installFixture();

    // Three sessions, each with its first prompt.
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    for (const s of ['alpha', 'beta', 'gamma']) {
      await sessions.create(name, s, `task for ${s}: fix the "auth" flow`);
      await expect(sessions.row(s)).toBeVisible();
    }
    for (const s of ['alpha', 'beta', 'gamma'])
      await expect(sessions.state(s)).toHaveText('Working', { timeout: 60_000 });
    const { sessions: rows } = await rpc<{ sessions: { id: string; name: string }[] }>('sessions.list', {
      workspace: name,
    });
    const idOf = (s: string): string => rows.find((r) => r.name === s)?.id ?? '';
    await shot('sessions.png');

    // The agent in beta asks for permission: Overview lists it first and the title counts it.
    await app.goTo('Overview');
    await expect(page).toHaveTitle('Nexus');
    fireHook(containerId, idOf('beta'), 'Notification', {
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use Bash',
    });
    const list = page.getByTestId('needs-you-list');
    await expect(list).toContainText(`${name} · beta`, { timeout: 5_000 });
    await expect(list).toContainText('Permission needed: Bash');
    await expect(page).toHaveTitle('(1) Nexus');
    await shot('overview-needs-you.png');

    // A message through the inbox is no consent: the agent queues it, the dialog and needs-you stay.
    // The needs-you item links straight to that session.
    await list.getByRole('link', { name: `${name} · beta` }).click();
    await expect(page.getByRole('region', { name: /Session beta/ })).toBeVisible();
    await sessions.send('go ahead, but only in the worktree');
    await expect
      .poll(() =>
        fixtureRecords(containerId, idOf('beta'))
          .filter((r) => r.kind === 'message')
          .map((r) => [r.content, r.queuedBehindDialog]),
      )
      .toEqual([['go ahead, but only in the worktree', true]]);
    await expect(sessions.state('beta')).toHaveText('Permission needed');
    await expect(page).toHaveTitle('(1) Nexus');

    // The human answers the dialog in the terminal (the tool runs); the queued message follows.
    fireHook(containerId, idOf('beta'), 'PostToolUse', { tool_name: 'Bash' });
    await expect(sessions.state('beta')).toHaveText('Working', { timeout: 15_000 });
    await app.goTo('Overview');
    await expect(page).toHaveTitle('Nexus');
    await expect(page.getByText('Nothing needs you')).toBeVisible();

    // From inside the worker, gamma's agent proposes a memory through nexus-mcp; the operator
    // approves it on the Review page; then memory.search from the worker finds it.
    const lesson = `The ${name} test suite needs NEXUS_TEST_BASE_IMAGE set`;
    await callPlatformTool(containerId, idOf('gamma'), 'memory_propose', { content: lesson, scope: 'project' });
    const review = new ReviewPage(page);
    await review.open();
    await expect(review.memory(lesson)).toBeVisible();
    await shot('review.png');
    expect(
      JSON.stringify(
        await callPlatformTool(containerId, idOf('alpha'), 'memory_search', { query: 'suite base image' }),
      ),
    ).not.toContain(lesson);
    await review.approveMemory(lesson);
    await expect
      .poll(async () =>
        JSON.stringify(
          await callPlatformTool(containerId, idOf('alpha'), 'memory_search', { query: 'suite base image' }),
        ),
      )
      .toContain(lesson);

    // Clean-up through the UI: the sessions, then the workspace.
    for (const s of ['alpha', 'beta', 'gamma']) await rpc('sessions.delete', { session: idOf(s) });
    await app.goTo('Workspaces');
    await workspaces.delete(name);
    const left = workspaceContainers(name);
    expect(left).toBe('');
  } finally {
    await world.close();
  }
});
