import { expect, type Locator, type Page } from '@playwright/test';

/** The app shell: navigation, status bar, theme. Every spec starts here. */
export class AppPage {
  readonly statusBar: Locator;
  constructor(readonly page: Page) {
    this.statusBar = page.getByTestId('status-bar');
  }

  async open(loginUrl: string): Promise<void> {
    await this.page.goto(loginUrl);
    await expect(this.statusBar).toBeVisible();
  }

  async goTo(name: 'Overview' | 'Workspaces' | 'Sessions' | 'Board' | 'Review' | 'Settings'): Promise<void> {
    await this.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
    await expect(this.page.getByRole('heading', { level: 1, name })).toBeVisible();
  }

  status(component: 'vault' | 'docker' | 'nats'): Locator {
    return this.page.getByTestId(`status-${component}`);
  }
}
