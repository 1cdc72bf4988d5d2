import { expect, type Locator, type Page } from '@playwright/test';

/** The Sessions page: per-workspace list with state chips, create form, send box, pane. */
export class SessionsPage {
  constructor(readonly page: Page) {}

  async create(workspace: string, name: string, initialMessage: string): Promise<void> {
    const form = this.page.getByRole('form', { name: 'New session' });
    const select = form.locator('select[name="workspace"]');
    if (await select.count()) await select.selectOption(workspace);
    else await form.locator('input[name="workspace"]').fill(workspace);
    await form.locator('input[name="name"]').fill(name);
    await form.locator('textarea[name="initialMessage"]').fill(initialMessage);
    await form.getByRole('button', { name: 'Create session' }).click();
  }

  row(name: string): Locator {
    return this.page.locator(`li[data-session="${name}"]`);
  }

  state(name: string): Locator {
    return this.row(name).getByTestId('session-state');
  }

  async open(name: string): Promise<void> {
    await this.row(name).getByRole('button', { name }).click();
    await expect(this.page.getByRole('region', { name: new RegExp(`Session ${name}`) })).toBeVisible();
  }

  async send(text: string): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Send a message' });
    await form.locator('textarea[name="message"]').fill(text);
    await form.getByRole('button', { name: 'Send' }).click();
    await expect(form.getByTestId('send-result')).toHaveText('Delivered');
  }

  /** What the session shows: the live terminal's screen, or the pane capture while it is not connected. */
  pane(): Locator {
    return this.page.getByTestId('session-terminal').locator('.xterm-rows').or(this.page.getByTestId('session-pane'));
  }
}
