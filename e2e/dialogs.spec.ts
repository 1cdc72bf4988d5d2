import { execFileSync } from 'node:child_process';
import type { Locator, Page } from '@playwright/test';
import { startFixtureWorkspace } from './fixtures/fixture-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';
import { WorkspacesPage } from './pages/workspaces-page';
import { testBaseImage } from '../test/helpers/docker';
import { ownerIdFor } from '../main/core/docker';

// Issue 26, items 2 and 3: every dialog is a modal <dialog> that Escape closes and that gives the
// focus back to the button that opened it (nothing behind it takes the focus meanwhile), each titled
// by its own heading; the forms show the contract's own messages next to the field they are about.
let fixture: Awaited<ReturnType<typeof startFixtureWorkspace>>;
let orphan = '';
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  test.setTimeout(900_000);
  fixture = await startFixtureWorkspace();
  await fixture.nexus.rpc('sessions.create', { workspace: fixture.name, name: 'dialogs' });
  orphan = `nexus-e2e-orphan-${fixture.name}`;
  execFileSync('docker', [
    'create',
    '--name',
    orphan,
    '--label',
    'nexus.managed=1',
    '--label',
    `nexus.owner=${ownerIdFor(fixture.nexus.dataDir)}`,
    '--label',
    `nexus.workspace.id=gone-${fixture.name}`,
    testBaseImage(),
  ]);
});
test.afterAll(async () => {
  if (orphan) execFileSync('docker', ['rm', '-f', orphan], { stdio: 'ignore' });
  await fixture?.stop();
});

/** Opens a dialog with `opener`, checks focus is inside and stays inside, closes it with Escape. */
async function escapeCloses(page: Page, opener: Locator, title: string): Promise<void> {
  await opener.click();
  const dialog = page.getByRole('dialog', { name: title });
  await expect(dialog).toBeVisible();
  const inside = (): Promise<boolean> =>
    dialog.evaluate((d) => d.contains(document.activeElement) || document.activeElement === document.body);
  expect(await dialog.evaluate((d) => d.contains(document.activeElement)), `${title}: focus moves in`).toBe(true);
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    expect(await inside(), `${title}: focus stays in after ${i + 1} Tab`).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();
}

test('every workspace dialog closes on Escape and gives the focus back to its button', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Workspaces');
  const workspaces = new WorkspacesPage(page);
  const row = workspaces.row(fixture.name);
  await expect(workspaces.status(fixture.name)).toHaveText('running');
  await escapeCloses(page, workspaces.newButton, 'New workspace');
  await escapeCloses(page, row.getByRole('button', { name: 'Agent' }), `Agent of ${fixture.name}`);
  await escapeCloses(page, row.getByRole('button', { name: 'Delegation' }), `Delegation for ${fixture.name}`);
  await escapeCloses(page, row.getByRole('button', { name: 'Stop' }), `Stop ${fixture.name}?`);
  await escapeCloses(page, row.getByRole('button', { name: 'Delete' }), `Delete ${fixture.name}?`);
  await escapeCloses(page, workspaces.orphan(orphan).getByRole('button', { name: 'Remove' }), `Remove ${orphan}?`);
  // Nothing was done: the workspace still runs and the orphan is still listed.
  await expect(workspaces.status(fixture.name)).toHaveText('running');
  await expect(workspaces.orphan(orphan)).toBeVisible();
});

test('each dialog is labelled by its own title, not by an id every dialog shares', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Workspaces');
  const row = new WorkspacesPage(page).row(fixture.name);
  const titleIdOf = async (button: string): Promise<string | null> => {
    await row.getByRole('button', { name: button }).click();
    const dialog = page.getByRole('dialog');
    const id = await dialog.getAttribute('aria-labelledby');
    expect(await page.locator(`[id="${id}"]`).count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    return id;
  };
  const ids = [await titleIdOf('Stop'), await titleIdOf('Delete'), await titleIdOf('Agent')];
  expect(new Set(ids).size).toBe(3);
});

test('the Delete session dialog closes on Escape, deletes nothing and gives the focus back', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Sessions');
  const sessions = new SessionsPage(page);
  await sessions.open('dialogs');
  await escapeCloses(page, page.getByRole('button', { name: 'Delete session' }), 'Delete session dialogs?');
  await expect(sessions.row('dialogs')).toBeVisible();
});

test('the New workspace form shows the contract’s messages next to the fields and focuses the first', async ({
  page,
}) => {
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Workspaces');
  await new WorkspacesPage(page).newButton.click();
  const dialog = page.getByRole('dialog', { name: 'New workspace' });
  const name = dialog.getByLabel('Name');
  const repo = dialog.getByLabel('Repository URL');
  await name.fill('My_Project');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription(
    'use 1-40 lowercase letters, digits and dashes, not starting or ending with a dash',
  );
  await expect(repo).toHaveAccessibleDescription('required');
  await expect(name).toBeFocused();
  // The message follows the input from then on; a valid name is described by its hint again.
  await name.fill('my-project');
  await expect(name).not.toHaveAttribute('aria-invalid');
  await expect(name).toHaveAccessibleDescription('Lowercase letters, digits and dashes.');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  expect((await fixture.nexus.rpc<{ workspaces: unknown[] }>('workspaces.list', {})).workspaces).toHaveLength(1);
});

test('the New session form refuses a name git cannot branch with the contract’s message, creating nothing', async ({
  page,
}) => {
  const app = new AppPage(page);
  await app.open(fixture.nexus.loginUrl);
  await app.goTo('Sessions');
  const form = await new SessionsPage(page).newSessionForm();
  const name = form.getByLabel('Name');
  for (const bad of ['fix..auth', 'fix.lock']) {
    await name.fill(bad);
    await form.getByRole('button', { name: 'Create session' }).click();
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(name).toHaveAccessibleDescription('not a valid branch name');
  }
  await name.fill('Fix Auth');
  await expect(name).toHaveAccessibleDescription(/lowercase letters, digits, dots, dashes and underscores/);
  const list = await fixture.nexus.rpc<{ sessions: { name: string }[] }>('sessions.list', {});
  expect(list.sessions.map((s) => s.name)).toEqual(['dialogs']);
});
