import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';

test('loads the UI through the token URL and shows vault, docker and nats state', async ({ page, nexus }) => {
  const app = new AppPage(page);
  await app.open(nexus.loginUrl);
  // The token is exchanged for a cookie and dropped from the address bar.
  expect(page.url()).toBe(`${nexus.url}/`);
  await expect(app.status('vault')).toContainText(/Vault: (uninitialized|locked|unlocked)/);
  await expect(app.status('docker')).toContainText(/Docker: (available|unavailable)/);
  await expect(app.status('nats')).toContainText(/NATS: \w+/);
  await page.screenshot({ path: test.info().outputPath('overview.png') });
});

test('navigates between the pages and keeps the session after a reload', async ({ page, nexus }) => {
  const app = new AppPage(page);
  await app.open(nexus.loginUrl);
  for (const name of ['Workspaces', 'Sessions', 'Review', 'Settings', 'Overview'] as const) await app.goTo(name);
  await page.reload();
  await expect(app.statusBar).toBeVisible();
});

test('switches between light and dark themes', async ({ page, nexus }) => {
  const app = new AppPage(page);
  await app.open(nexus.loginUrl);
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.getByRole('button', { name: /Switch to/ }).click();
  const after = await page.evaluate(() => document.documentElement.dataset.theme);
  expect(after).not.toBe(before);
  expect(['light', 'dark']).toContain(after);
});
