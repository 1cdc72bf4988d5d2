import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { removeOwnedBy } from '../test/helpers/docker';
import { startNexusProcess, type NexusProcess } from '../test/helpers/nexus-process';
import { SettingsPage } from './pages/settings-page';

const PASS = 'e2e sealed vault passphrase';
// A session bus address that leads nowhere: no Secret Service, as on a headless server.
const NO_KEYCHAIN = { NEXUS_DOCKER_NETWORK: 'nexus', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/nexus-no-bus' };

test('without a keychain the vault is set up with a passphrase, and after a restart the banner unseals it', async ({
  page,
}) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-e2e-sealed-'));
  let nexus: NexusProcess | null = null;
  try {
    nexus = await startNexusProcess(dataDir, NO_KEYCHAIN);
    const settings = new SettingsPage(page);
    await settings.app.open(`${nexus.url}/?token=${nexus.token}`);
    await settings.open();
    const setUp = settings.vault.getByRole('form', { name: 'Set up the vault' });
    await expect(setUp).toContainText('No OS keychain is reachable here');
    await setUp.getByLabel('Vault passphrase', { exact: true }).fill(PASS);
    await setUp.getByLabel('Confirm vault passphrase').fill(PASS);
    await setUp.getByRole('button', { name: 'Set up vault' }).click();
    await expect(settings.vaultState()).toHaveText('unlocked');
    await expect(settings.vault.getByTestId('vault-mode')).toHaveText('a passphrase (sealed at every start)');

    await nexus.kill('SIGTERM');
    nexus = await startNexusProcess(dataDir, NO_KEYCHAIN);
    await settings.app.open(`${nexus.url}/?token=${nexus.token}`);
    const banner = page.getByTestId('banner-vault');
    await expect(banner).toContainText('The vault is sealed');
    await expect(banner).toContainText('nexus unlock');
    await expect(settings.app.status('vault')).toContainText('locked');

    const unseal = banner.getByRole('form', { name: 'Unseal the vault' });
    await unseal.getByLabel('Vault passphrase').fill('not the passphrase');
    await unseal.getByRole('button', { name: 'Unlock' }).click();
    await expect(unseal.getByRole('status')).toHaveText('Wrong passphrase.');
    await expect(settings.app.status('vault')).toContainText('locked');
    await page.screenshot({ path: test.info().outputPath('vault-sealed-banner.png'), fullPage: true });

    await unseal.getByLabel('Vault passphrase').fill(PASS);
    await unseal.getByRole('button', { name: 'Unlock' }).click();
    await expect(banner).toHaveCount(0);
    await expect(settings.app.status('vault')).toContainText('Vault: unlocked');
    await settings.open();
    await expect(settings.vaultState()).toHaveText('unlocked');
    await expect(settings.vaultReason()).toContainText('sealed again at the next start');
  } finally {
    await nexus?.kill('SIGTERM');
    await removeOwnedBy(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
