import type { Locator, Page } from '@playwright/test';
import { callPlatformTool, fixtureRecords } from '../test/helpers/agent-fixture';
import { startGitHubIssuesStandin, type GitHubIssuesStandin } from '../test/helpers/github-issues-standin';
import { startFixtureWorkspace } from './fixtures/fixture-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';

// Issue 45 in the UI: Settings → Tracker sets a workspace's tracker (here a stand-in of GitHub's Issues API); on the
// Board "Start a session on issue #N" starts one whose first message is the issue, the card shows its issue, a task is
// linked to another, and each mirrored comment says where it is: on the issue, pending, or refused (still retried).
let fixture: Awaited<ReturnType<typeof startFixtureWorkspace>>;
let gh: GitHubIssuesStandin;
let secretId = '';
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  test.setTimeout(600_000);
  [fixture, gh] = await Promise.all([startFixtureWorkspace(), startGitHubIssuesStandin()]);
  await fixture.nexus.rpc('vault.init', {});
  secretId = (
    await fixture.nexus.rpc<{ id: string }>('secrets.create', {
      name: 'GitHub stand-in token',
      kind: 'generic',
      host: new URL(gh.url).host,
      value: gh.token,
    })
  ).id;
});
test.afterAll(async () => {
  await fixture?.stop();
  await gh?.close();
});

const card = (page: Page, text: string): Locator => page.getByTestId('task-card').filter({ hasText: text });

test('Settings → Tracker sets the workspace’s GitHub tracker with its credential and status mapping', async ({
  page,
}) => {
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Settings');
  const section = page.getByTestId('settings-tracker');
  await expect(section.getByLabel('Workspace')).toHaveValue(/.+/);
  const form = section.getByRole('form', { name: 'Tracker settings' });
  await form.getByLabel('Kind').selectOption({ label: 'GitHub Issues' });
  await expect(form.getByLabel('Address')).toHaveAttribute('placeholder', 'https://api.github.com');
  await form.getByLabel('Address').fill(gh.url);
  await form.getByLabel('Project').fill(gh.repo);
  await form.getByLabel('Credential').selectOption(secretId);
  await form.getByLabel('Done', { exact: true }).fill('closed');
  await form.getByLabel('Start sessions by themselves').check();
  await form.getByLabel('Issues with the label').fill('nexus');
  await form.getByLabel('Start sessions by themselves').uncheck();
  await form.getByRole('button', { name: 'Save tracker' }).click();
  await expect(form.getByText('Saved.')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('settings-tracker.png'), fullPage: true });
  expect(await fixture.nexus.rpc('tracker.get', { workspace: fixture.name })).toMatchObject({
    tracker: { kind: 'github', url: gh.url, project: gh.repo, secretId, statusMap: { done: 'closed' }, pickup: null },
  });
  // Read back when the page opens again.
  await page.reload();
  await expect(page.getByTestId('settings-tracker').getByLabel('Project')).toHaveValue(gh.repo);
});

test('the Board starts a session on issue #N, shows the issue on its card and each comment’s way to the tracker', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const n = gh.file({ title: 'Signup rejects plus addresses', body: 'a+b@example.com is refused.\n\nExpected: ok.' });
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Board');
  const start = page.getByRole('form', { name: 'Start a session on an issue' });
  await start.getByLabel('Issue number').fill(`#${n}`);
  await start.getByRole('button', { name: `Start a session on issue #${n}` }).click();
  await expect(start.getByTestId('issue-started')).toContainText(`${fixture.name} · issue-${n}-signup-rejects`);
  const onIssue = card(page, `Issue #${n}`);
  await expect(onIssue).toContainText('Signup rejects plus addresses');
  await expect(onIssue.getByRole('link', { name: `#${n}` })).toHaveAttribute(
    'href',
    `https://github.com/${gh.repo}/issues/${n}`,
  );
  const { sessions } = await fixture.nexus.rpc<{ sessions: { id: string; name: string; branch: string }[] }>(
    'sessions.list',
    { workspace: fixture.name },
  );
  const session = sessions.find((s) => s.name.startsWith(`issue-${n}-`));
  expect(session?.branch).toBe(`nexus/${session?.name}`);
  // The fixture writes its record once the session's window runs.
  const launched = () => {
    try {
      return fixtureRecords(fixture.containerId, session!.id).find((r) => r.kind === 'launch')?.parsed?.prompt;
    } catch {
      return undefined;
    }
  };
  await expect
    .poll(launched, { timeout: 60_000 })
    .toBe('Signup rejects plus addresses\n\na+b@example.com is refused.\n\nExpected: ok.');

  // The session's agent comments (platform tool, over NATS): the comment lands on the issue and says so.
  const comment = (body: string) => callPlatformTool(fixture.containerId, session!.id, 'board_comment', { body });
  await comment('Found it: the regex has no +.');
  const badge = (text: string) => onIssue.getByRole('listitem').filter({ hasText: text }).getByTestId('mirror-badge');
  await expect(badge('Found it')).toHaveText(`on #${n}`, { timeout: 30_000 });
  // The tracker down: stored, shown pending; refusing (403): shown as refused, still retried.
  gh.down = true;
  await comment('Writing the test.');
  await expect(badge('Writing the test')).toHaveText(`pending to #${n}`, { timeout: 30_000 });
  gh.down = false;
  gh.refuse = true;
  await expect(badge('Writing the test')).toHaveText(`#${n} refused it; retrying`, { timeout: 60_000 });
  await page.screenshot({ path: test.info().outputPath('board-mirror.png'), fullPage: true });
  gh.refuse = false;
  await expect(badge('Writing the test')).toHaveText(`on #${n}`, { timeout: 60_000 });
  expect(gh.comments(n).map((c) => c.body.split('\n')[0])).toEqual([
    expect.stringMatching(/^Nexus started session issue-/),
    'Found it: the regex has no +.',
    'Writing the test.',
  ]);
});

test('a task of the workspace is linked to an issue from its card', async ({ page }) => {
  const n = gh.file({ title: 'Flaky upload test' });
  await fixture.nexus.rpc('sessions.create', {
    workspace: fixture.name,
    name: 'flaky',
    initialMessage: 'Fix the flaky upload test',
  });
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Board');
  const task = card(page, 'Fix the flaky upload test');
  await task.getByText('Link to a tracker issue').click();
  // A number the tracker does not have is refused with its reason, and nothing is linked.
  await task.getByLabel('Issue number').fill('9999');
  await task.getByRole('button', { name: 'Link' }).click();
  await expect(task.getByRole('alert')).toContainText('404');
  expect(gh.requests.at(-1)).toBe(`GET /repos/${gh.repo}/issues/9999`);
  await task.getByLabel('Issue number').fill(String(n));
  await task.getByRole('button', { name: 'Link' }).click();
  await expect(task.getByTestId('task-issue')).toHaveText(`Issue #${n} Flaky upload test`);
  await page.screenshot({ path: test.info().outputPath('board-linked.png'), fullPage: true });
});
