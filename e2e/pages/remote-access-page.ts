import { expect, type Locator, type Page } from '@playwright/test';
import { AppPage } from './app-page';

/** Settings → Access (remote connectors): public origin, connectors waiting, grants. */
export class RemoteAccessPage {
  readonly app: AppPage;
  readonly section: Locator;
  constructor(readonly page: Page) {
    this.app = new AppPage(page);
    this.section = page.getByTestId('settings-remote');
  }

  async open(): Promise<void> {
    await this.app.goTo('Settings');
    await expect(this.section).toBeVisible();
  }

  pending(code: string): Locator {
    return this.section.getByTestId('remote-pending').filter({ hasText: code });
  }

  grant(clientName: string): Locator {
    return this.section.getByTestId('remote-grant').filter({ hasText: clientName });
  }

  async approve(code: string, cls: 'read' | 'write'): Promise<void> {
    const item = this.pending(code);
    await item.getByLabel('Class').selectOption(cls);
    await item.getByRole('button', { name: 'Approve' }).click();
  }

  async revoke(clientName: string): Promise<void> {
    const item = this.grant(clientName);
    await item.getByRole('button', { name: 'Revoke' }).click();
    await item.getByRole('button', { name: 'Confirm revoke' }).click();
  }
}
