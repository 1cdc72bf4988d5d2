import { expect, type Locator, type Page } from '@playwright/test';
import { AppPage } from './app-page';

/** The Review page: pending memories and draft skills. */
export class ReviewPage {
  readonly app: AppPage;
  constructor(readonly page: Page) {
    this.app = new AppPage(page);
  }

  async open(): Promise<void> {
    await this.app.goTo('Review');
  }

  /** A memory card, found by its label (the proposed text), which stays the same while it is edited. */
  memory(text: string): Locator {
    return this.page.getByTestId('memory-proposal').and(this.page.getByRole('listitem', { name: text }));
  }

  async approveMemory(text: string): Promise<void> {
    const card = this.memory(text);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(card).toHaveCount(0);
  }

  async editAndApproveMemory(text: string, edited: string): Promise<void> {
    const card = this.memory(text);
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByLabel('Edit memory').fill(edited);
    await card.getByRole('button', { name: 'Save and approve' }).click();
    await expect(card).toHaveCount(0);
  }

  skill(name: string): Locator {
    return this.page.getByTestId('skill-draft').filter({ hasText: name });
  }
}
