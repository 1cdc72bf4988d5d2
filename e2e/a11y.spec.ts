import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { startFixtureWorkspace } from './fixtures/fixture-workspace';
import { expect, test, type NexusServer } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';

// Issue 26, item 7: every page in the light and the dark theme (from prefers-color-scheme) has no
// serious or critical axe violation, and its screenshot is attached to the run for a look beside the peers.
const pages = ['Overview', 'Workspaces', 'Sessions', 'Board', 'Review', 'Settings'] as const;
const themes = ['light', 'dark'] as const;

let fixture: Awaited<ReturnType<typeof startFixtureWorkspace>>;
let nexus: NexusServer;
test.beforeAll(async () => {
  test.setTimeout(900_000);
  // Something on every page: a running workspace with a session, a vault with a secret, a token, tasks.
  fixture = await startFixtureWorkspace();
  nexus = fixture.nexus;
  await nexus.rpc('sessions.create', { workspace: fixture.name, name: 'fix-login', initialMessage: 'Fix the login' });
  await nexus.rpc('vault.init', {});
  await nexus.rpc('secrets.create', {
    name: 'GitHub personal',
    kind: 'github',
    value: 'ghp_a11ySpecToken0123456789abcdWXYZ',
  });
  await nexus.rpc('tokens.create', { name: 'ci', class: 'read' });
  const goal = await nexus.rpc<{ id: string }>('tasks.create', {
    title: 'Ship the login page',
    body: 'Behind a flag.',
  });
  await nexus.rpc('tasks.create', { title: 'Write the form tests', parentId: goal.id });
});
test.afterAll(() => fixture?.stop());

/** axe's serious and critical findings, one line each (rule, what it is about, the first elements). */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

/** The whole page (the content scrolls inside the app, so the window grows to fit it first). */
async function attachScreenshot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
  const needed = await page.evaluate(() => {
    const main = document.querySelector('main');
    return main ? main.scrollHeight - main.clientHeight + window.innerHeight : window.innerHeight;
  });
  await page.setViewportSize({ width: viewport.width, height: Math.min(Math.max(needed, viewport.height), 4000) });
  await test.info().attach(`${name}.png`, { body: await page.screenshot(), contentType: 'image/png' });
  await page.setViewportSize(viewport);
}

async function openIn(page: Page, theme: (typeof themes)[number]): Promise<AppPage> {
  await page.emulateMedia({ colorScheme: theme });
  const app = new AppPage(page);
  await app.open(nexus.loginUrl);
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
  return app;
}

for (const theme of themes) {
  for (const name of pages) {
    test(`the ${name} page in the ${theme} theme has no serious accessibility violation`, async ({ page }) => {
      const app = await openIn(page, theme);
      await app.goTo(name);
      await expect(page.getByText('Loading…')).toHaveCount(0);
      await attachScreenshot(page, `${name.toLowerCase()}-${theme}`);
      expect(await seriousViolations(page)).toEqual([]);
    });
  }

  test(`a session opened on the Sessions page in the ${theme} theme has no serious accessibility violation`, async ({
    page,
  }) => {
    const app = await openIn(page, theme);
    await app.goTo('Sessions');
    await new SessionsPage(page).open('fix-login');
    await attachScreenshot(page, `session-${theme}`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  test(`the New workspace dialog in the ${theme} theme has no serious accessibility violation`, async ({ page }) => {
    const app = await openIn(page, theme);
    await app.goTo('Workspaces');
    await page.getByRole('button', { name: 'New workspace' }).click();
    const dialog = page.getByRole('dialog', { name: 'New workspace' });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog.getByLabel('Repository URL')).toHaveAccessibleDescription('required');
    await attachScreenshot(page, `new-workspace-dialog-${theme}`);
    expect(await seriousViolations(page)).toEqual([]);
  });
}

test('the theme follows the system as it changes until the operator picks one with the toggle', async ({ page }) => {
  await openIn(page, 'light');
  const html = page.locator('html');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'light');
});
