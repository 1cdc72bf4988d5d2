import { randomBytes } from 'node:crypto';
import type { Page, TestInfo } from '@playwright/test';
import { userTexts } from '../test/helpers/model-api';
import { startEmptyRealAgentNexus } from './fixtures/real-agent-nexus';
import { expect, test } from './fixtures/nexus';
import { OverviewPage } from './pages/overview-page';
import { SessionsPage } from './pages/sessions-page';
import { SettingsPage } from './pages/settings-page';
import { WorkspacesPage } from './pages/workspaces-page';

// Issue 39, item 3: from an empty data dir to a running session by following the Overview's
// checklist — the vault, an agent credential, a workspace, a session — with the real, pinned agent
// CLI and the scripted model stand-in. Each step ticks itself from Nexus's state; a screenshot per step.
const ASK = 'Say hello to the new operator, please.';
const REPLY = `Hello from the scripted model ${randomBytes(3).toString('hex')}.`;

/** The screenshot of one step, attached to the run (and kept beside it for a look). */
async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const body = await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
  await testInfo.attach(name, { body, contentType: 'image/png' });
}

test('a new operator follows the Overview checklist from an empty Nexus to a running session the real agent answers', async ({
  page,
}, testInfo) => {
  test.setTimeout(900_000);
  const world = await startEmptyRealAgentNexus();
  const { nexus, env } = world;
  const name = `first-${randomBytes(3).toString('hex')}`;
  env.api.onTurn(() => ({ text: REPLY }));
  try {
    const overview = new OverviewPage(page);
    await overview.app.open(nexus.loginUrl);

    // An empty Nexus: four steps to do, and the vault that is not set up waits in Needs you.
    await expect(overview.firstRun).toContainText('0 of 4 steps done');
    for (const step of [
      'Set up the vault',
      'Add an agent credential',
      'Create a workspace',
      'Start a session',
    ] as const)
      await expect(overview.stepState(step)).toHaveText('To do');
    await expect(overview.notice('vault')).toContainText('Vault not set up');
    await expect(overview.needsYou.getByRole('heading', { level: 2 })).toHaveText('Needs you (1)');
    await shot(page, testInfo, '0-empty-nexus');

    // 1. The vault, from its step's link to Settings → Vault.
    await overview.follow('Set up the vault');
    const settings = new SettingsPage(page);
    await expect(page).toHaveURL(/#\/settings\/vault$/);
    await settings.initVault();
    await expect(settings.vaultState()).toHaveText('unlocked');
    await overview.open();
    await expect(overview.stepState('Set up the vault')).toHaveText('Done');
    await expect(overview.notice('vault')).toHaveCount(0);
    await shot(page, testInfo, '1-vault-set-up');

    // 2. The agent's credential: an Anthropic API key in Secrets, chosen under Agent.
    await overview.follow('Add an agent credential');
    await settings.addSecret({ name: 'agent key', kind: 'Anthropic API key (Claude Code)', value: env.canary });
    await expect(settings.secret('agent key')).toBeVisible();
    await settings.chooseAgentCredential('agent key');
    await overview.open();
    await expect(overview.stepState('Add an agent credential')).toHaveText('Done');
    await expect(overview.firstRun).toContainText('2 of 4 steps done');
    await shot(page, testInfo, '2-agent-credential');

    // 3. A workspace cloned from the served repository; it ticks once it exists.
    await overview.follow('Create a workspace');
    const workspaces = new WorkspacesPage(page);
    await workspaces.create(name, env.repo.url);
    await expect(workspaces.status(name)).toHaveText('running', { timeout: 300_000 });
    await overview.open();
    await expect(overview.stepState('Create a workspace')).toHaveText('Done');
    await shot(page, testInfo, '3-workspace');

    // 4. A session with its first message: the real CLI asks the scripted model, which answers.
    await overview.follow('Start a session');
    const sessions = new SessionsPage(page);
    await sessions.create(name, 'hello', ASK);
    await expect(sessions.row('hello')).toBeVisible();
    const turn = await env.api.waitForRequest(
      (r) => r.kind === 'turn' && userTexts(r.body.messages ?? []).some((t) => t.includes(ASK)),
      300_000,
    );
    // The key chosen in step 2 signed the request (the stand-in records which header, never the value).
    expect(turn.auth).toBe('x-api-key');
    await expect(sessions.state('hello')).toHaveText('Idle', { timeout: 120_000 });
    await sessions.open('hello');
    await expect(await sessions.liveScreen()).toContainText(REPLY, { timeout: 60_000 });
    await shot(page, testInfo, '4-session-answered');

    // All four done: the checklist is gone, and stays gone after a reload.
    await overview.open();
    await expect(overview.needsYou).toContainText('Nothing needs you');
    await expect(overview.firstRun).toHaveCount(0);
    await page.reload();
    await expect(overview.app.statusBar).toBeVisible();
    await expect(overview.needsYou).toBeVisible();
    await expect(overview.firstRun).toHaveCount(0);
    await shot(page, testInfo, '5-all-done');
  } finally {
    await testInfo.attach('nexus-output', { body: nexus.output(), contentType: 'text/plain' });
    await world.stop([name]);
  }
});
