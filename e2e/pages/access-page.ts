import { expect, type Locator, type Page } from '@playwright/test';
import { AppPage } from './app-page';

/** Settings → Access (MCP tokens) and Settings → Connect. */
export class AccessPage {
  readonly app: AppPage;
  readonly access: Locator;
  readonly connect: Locator;
  constructor(readonly page: Page) {
    this.app = new AppPage(page);
    this.access = page.getByTestId('settings-access');
    this.connect = page.getByTestId('settings-connect');
  }

  async open(): Promise<void> {
    await this.app.goTo('Settings');
    await expect(this.access).toBeVisible();
  }

  /** Creates a token and returns the secret shown once. */
  async createToken(name: string, cls: 'read' | 'write' | 'vault', days?: number): Promise<string> {
    const form = this.access.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Class').selectOption(cls);
    if (days !== undefined) await form.getByLabel('Expires in (days)').fill(String(days));
    await form.getByRole('button', { name: 'Create token' }).click();
    const secret = this.access.getByTestId('token-secret');
    await expect(secret).toBeVisible();
    return (await secret.textContent()) ?? '';
  }

  token(name: string): Locator {
    return this.access.getByTestId('token-item').filter({ has: this.page.getByText(name, { exact: true }) });
  }

  async revoke(name: string): Promise<void> {
    const item = this.token(name);
    await item.getByRole('button', { name: 'Revoke' }).click();
    await item.getByRole('button', { name: 'Confirm revoke' }).click();
  }

  async connectClaudeDesktop(may: 'read' | 'write' | 'vault'): Promise<void> {
    await this.connect.getByLabel('Claude Desktop may').selectOption(may);
    await this.connect.getByRole('button', { name: 'Connect Claude Desktop' }).click();
  }
}
