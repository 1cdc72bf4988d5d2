import type { Locator, Page } from '@playwright/test';

/** Pending permission requests, wherever they show (the Overview's Needs-you list, a session page). */
export class PermissionRequests {
  constructor(readonly page: Page) {}

  /** The request whose input shows `text` (a command, a path), inside `scope` (default: the page). */
  request(text: string, scope: Locator | Page = this.page): Locator {
    return scope.getByTestId('permission-request').filter({ hasText: text });
  }

  async allow(card: Locator): Promise<void> {
    await card.getByRole('button', { name: 'Allow once', exact: true }).click();
  }

  async deny(card: Locator): Promise<void> {
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
  }

  async denyWithNote(card: Locator, note: string): Promise<void> {
    await card.getByRole('button', { name: 'Deny with a note' }).click();
    await card.getByRole('textbox', { name: 'Note for the agent' }).fill(note);
    await card.getByRole('button', { name: 'Send denial' }).click();
  }
}
