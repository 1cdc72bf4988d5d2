import { expect, type Locator, type Page } from '@playwright/test';
import { AppPage } from './app-page';

export interface NewSecret {
  name: string;
  kind: 'GitHub' | 'GitLab' | 'Other' | 'Anthropic API key (Claude Code)';
  host?: string;
  value: string;
}

/** Settings → Vault, Settings → Secrets and Settings → Agent. */
export class SettingsPage {
  readonly app: AppPage;
  readonly vault: Locator;
  readonly secrets: Locator;
  readonly agent: Locator;
  constructor(readonly page: Page) {
    this.app = new AppPage(page);
    this.vault = page.getByTestId('settings-vault');
    this.secrets = page.getByTestId('settings-secrets');
    this.agent = page.getByTestId('settings-agent');
  }

  async open(): Promise<void> {
    await this.app.goTo('Settings');
  }

  vaultState(): Locator {
    return this.vault.getByTestId('vault-state');
  }

  vaultReason(): Locator {
    return this.vault.getByTestId('vault-reason');
  }

  async initVault(recoveryPassphrase?: string, confirm = recoveryPassphrase): Promise<void> {
    const form = this.vault.getByRole('form', { name: 'Set up the vault' });
    if (recoveryPassphrase !== undefined) {
      await form.getByLabel('Recovery passphrase', { exact: true }).fill(recoveryPassphrase);
      await form.getByLabel('Confirm recovery passphrase').fill(confirm ?? '');
    }
    await form.getByRole('button', { name: 'Set up vault' }).click();
  }

  async lock(): Promise<void> {
    await this.vault.getByRole('button', { name: 'Lock vault' }).click();
    await expect(this.vaultState()).toHaveText('locked');
  }

  async unlock(passphrase: string): Promise<void> {
    const form = this.vault.getByRole('form', { name: 'Unlock the vault' });
    await form.getByLabel('Recovery passphrase').fill(passphrase);
    await form.getByRole('button', { name: 'Unlock', exact: true }).click();
  }

  async addSecret(s: NewSecret): Promise<void> {
    const form = this.secrets.getByRole('form', { name: 'Add a secret' });
    await form.getByLabel('Name').fill(s.name);
    await form.getByLabel('Kind').selectOption({ label: s.kind });
    if (s.host !== undefined) await form.getByLabel('Host').fill(s.host);
    await form.getByLabel('Value').fill(s.value);
    await form.getByRole('button', { name: 'Add secret' }).click();
  }

  secret(name: string): Locator {
    return this.secrets.getByRole('listitem', { name, exact: true });
  }

  async replaceSecretValue(name: string, value: string): Promise<void> {
    await this.secret(name).getByRole('button', { name: 'Edit' }).click();
    const form = this.secrets.getByRole('form', { name: `Edit ${name}` });
    await form.getByLabel('New value (leave empty to keep)').fill(value);
    await form.getByRole('button', { name: 'Save' }).click();
  }

  async deleteSecret(name: string): Promise<void> {
    await this.secret(name).getByRole('button', { name: 'Delete' }).click();
    await this.secret(name).getByRole('button', { name: 'Confirm delete' }).click();
    await expect(this.secret(name)).toHaveCount(0);
  }

  /** Settings → Agent → a kind's credential (default: Claude Code's): the vault secret named `name`. */
  async chooseAgentCredential(name: string, kindLabel = 'Claude Code'): Promise<void> {
    const select = this.agent.getByLabel(`${kindLabel} credential`);
    const option = select.locator('option', { hasText: `${name} (` });
    await expect(option).toHaveCount(1);
    await select.selectOption((await option.getAttribute('value')) ?? '');
    await expect(select).toHaveValue((await option.getAttribute('value')) ?? '');
  }

  errors(): Locator {
    return this.page.getByRole('alert');
  }
}
