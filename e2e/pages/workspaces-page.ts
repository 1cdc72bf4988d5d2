import { expect, type Locator, type Page } from '@playwright/test';

/** The Workspaces page: list with status chips, create dialog, delete confirmation, Docker banner. */
export class WorkspacesPage {
  readonly newButton: Locator;
  readonly dockerBanner: Locator;
  constructor(readonly page: Page) {
    this.newButton = page.getByRole('button', { name: 'New workspace' });
    this.dockerBanner = page.getByTestId('banner-docker');
  }

  row(name: string): Locator {
    return this.page.getByTestId(`workspace-${name}`);
  }

  status(name: string): Locator {
    return this.row(name).getByTestId('workspace-status');
  }

  async create(
    name: string,
    repoUrl: string,
    secretLabel?: string,
    agent: {
      credentialLabel?: string;
      bypassPermissions?: boolean;
      delegation?: 'none' | 'read' | 'write' | 'vault';
      defaultAgent?: 'Claude Code' | 'Codex';
    } = {},
  ): Promise<void> {
    await this.newButton.click();
    const dialog = this.page.getByRole('dialog', { name: 'New workspace' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('Repository URL').fill(repoUrl);
    if (secretLabel) await dialog.getByLabel('Secret').selectOption({ label: secretLabel });
    if (agent.credentialLabel)
      await dialog.getByLabel('Agent credential').selectOption({ label: agent.credentialLabel });
    if (agent.bypassPermissions) await dialog.getByLabel('Run sessions in bypassPermissions').check();
    if (agent.delegation) await dialog.getByLabel('Delegation').selectOption(agent.delegation);
    if (agent.defaultAgent) await dialog.getByLabel('Default agent').selectOption({ label: agent.defaultAgent });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();
  }

  orphan(name: string): Locator {
    return this.page.getByTestId(`orphan-${name}`);
  }

  async removeOrphan(name: string): Promise<void> {
    await this.orphan(name).getByRole('button', { name: 'Remove' }).click();
    await this.page
      .getByRole('dialog', { name: `Remove ${name}?` })
      .getByRole('button', { name: 'Remove container' })
      .click();
    // Removing a container on the vfs storage driver can take a while on a busy machine.
    await expect(this.orphan(name)).toHaveCount(0, { timeout: 90_000 });
  }

  async stop(name: string): Promise<void> {
    await this.row(name).getByRole('button', { name: 'Stop' }).click();
    await this.page
      .getByRole('dialog', { name: `Stop ${name}?` })
      .getByRole('button', { name: 'Stop workspace' })
      .click();
    await expect(this.status(name)).toHaveText('stopped');
  }

  async start(name: string): Promise<void> {
    await this.row(name).getByRole('button', { name: 'Start' }).click();
    await expect(this.status(name)).toHaveText('running');
  }

  async delete(name: string): Promise<void> {
    await this.row(name).getByRole('button', { name: 'Delete' }).click();
    const dialog = this.page.getByRole('dialog', { name: `Delete ${name}?` });
    await dialog.getByRole('button', { name: 'Delete workspace' }).click();
    await expect(this.row(name)).toHaveCount(0, { timeout: 90_000 });
  }

  /** Workspaces → Delegation on one row: the dialog, its current choice, then a new one saved. */
  async setDelegation(
    name: string,
    access: 'none' | 'read' | 'write' | 'vault',
    expectCurrent?: string,
  ): Promise<void> {
    await this.row(name).getByRole('button', { name: 'Delegation' }).click();
    const dialog = this.page.getByRole('dialog', { name: `Delegation for ${name}` });
    if (expectCurrent) await expect(dialog.getByLabel('Delegation')).toHaveValue(expectCurrent);
    await dialog.getByLabel('Delegation').selectOption(access);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
  }
}
