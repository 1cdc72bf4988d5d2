import { expect, test } from './fixtures/nexus';
import { SettingsPage } from './pages/settings-page';

const TOKEN = 'ghp_e2eVaultSpecToken0123456789abcdWXYZ';
const PASS = 'e2e recovery passphrase';

test('initializes the vault, adds a secret, and after a reload lists it with only its last 4 characters', async ({
  page,
  nexus,
}) => {
  const settings = new SettingsPage(page);
  await settings.app.open(nexus.loginUrl);
  await settings.open();
  await expect(settings.vaultState()).toHaveText('uninitialized');
  await settings.initVault(PASS);
  await expect(settings.vaultState()).toHaveText('unlocked');
  await expect(settings.app.status('vault')).toContainText('Vault: unlocked');

  await settings.addSecret({ name: 'GitHub personal', kind: 'GitHub', value: TOKEN });
  await expect(settings.secret('GitHub personal')).toBeVisible();

  await page.reload();
  await settings.open();
  const item = settings.secret('GitHub personal');
  await expect(item.getByTestId('secret-hint')).toHaveText('••••WXYZ');
  await expect(item).toContainText('github.com');
  expect(await page.content()).not.toContain(TOKEN.slice(0, -4));
  await page.screenshot({ path: test.info().outputPath('vault-settings.png'), fullPage: true });
});

test('locks, shows a clear error for a wrong passphrase, and unlocks with the right one', async ({ page, nexus }) => {
  const settings = new SettingsPage(page);
  await settings.app.open(nexus.loginUrl);
  await settings.open();
  await settings.initVault('short', 'short');
  await expect(settings.vault.getByRole('alert')).toHaveText(/at least 8 characters/);
  await settings.initVault(PASS, `${PASS}!`);
  await expect(settings.vault.getByRole('alert')).toHaveText(/do not match/);
  await settings.initVault(PASS);
  await expect(settings.vaultState()).toHaveText('unlocked');

  await settings.lock();
  await expect(settings.vaultReason()).toContainText('Locked by the operator');
  await expect(settings.app.status('vault')).toContainText('Vault: locked');
  await settings.unlock('not the passphrase');
  await expect(settings.vault.getByRole('alert')).toHaveText('Wrong recovery passphrase.');
  await settings.unlock(PASS);
  await expect(settings.vaultState()).toHaveText('unlocked');
});

test('replaces and deletes a secret, and refuses a duplicate name with the message from core', async ({
  page,
  nexus,
}) => {
  const settings = new SettingsPage(page);
  await settings.app.open(nexus.loginUrl);
  await settings.open();
  await settings.initVault();
  await expect(settings.vaultState()).toHaveText('unlocked');
  await settings.addSecret({ name: 'api', kind: 'Other', host: 'api.example.com', value: 'first-value-1111' });
  await expect(settings.secret('api').getByTestId('secret-hint')).toHaveText('••••1111');
  await settings.addSecret({ name: 'api', kind: 'Other', value: 'other-value-2222' });
  await expect(settings.secrets.getByRole('alert')).toHaveText('A secret named "api" already exists.');
  await settings.replaceSecretValue('api', 'second-value-3333');
  await expect(settings.secret('api').getByTestId('secret-hint')).toHaveText('••••3333');
  await settings.deleteSecret('api');
  await expect(settings.secrets).toContainText('No secrets yet.');
});
