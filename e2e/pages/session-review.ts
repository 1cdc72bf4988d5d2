import { expect, type Locator, type Page } from '@playwright/test';

/**
 * Review that talks back, in the selected session's detail: comments on diff lines (click a new-side line
 * number in the diff, shift-click to extend), the turns with their checkpoints, and the conflict radar.
 */
export class SessionReview {
  constructor(readonly page: Page) {}

  comments(): Locator {
    return this.page.getByTestId('review-comments');
  }

  /** Clicks line `from` (then shift-clicks `to`) of `path` in the Changes diff, writes the comment and adds it. */
  async comment(path: string, from: number, to: number, body: string): Promise<void> {
    const file = this.page.getByTestId('session-changes').locator(`[data-path="${path}"]`);
    const lineCell = (n: number) =>
      file
        .locator('.d2h-code-linenumber')
        .filter({ has: this.page.locator('.line-num2', { hasText: new RegExp(`^\\s*${n}\\s*$`) }) });
    await lineCell(from).first().click();
    if (to !== from)
      await lineCell(to)
        .first()
        .click({ modifiers: ['Shift'] });
    const form = this.page.getByRole('form', { name: 'Comment on lines' });
    await expect(form.locator('input[name="startLine"]')).toHaveValue(String(from));
    await expect(form.locator('input[name="endLine"]')).toHaveValue(String(to));
    await form.locator('textarea[name="comment"]').fill(body);
    await form.getByRole('button', { name: 'Add comment' }).click();
    await expect(this.comments().getByTestId('review-comment').filter({ hasText: body })).toBeVisible();
  }

  async sendReview(): Promise<void> {
    await this.comments()
      .getByRole('button', { name: /^Send to agent/ })
      .click();
    await expect(this.comments().getByTestId('review-sent')).toBeVisible();
  }

  turns(): Locator {
    return this.page.getByTestId('session-turns');
  }

  turn(seq: number): Locator {
    return this.turns().locator(`[data-testid="turn"][data-seq="${seq}"]`);
  }

  async restore(seq: number): Promise<void> {
    const row = this.turn(seq);
    await row.getByRole('button', { name: /^Restore/ }).click();
    await row.getByRole('button', { name: 'Restore', exact: true }).click();
    await expect(this.turns().getByTestId('restore-result')).toBeVisible();
  }

  radar(): Locator {
    return this.page.getByTestId('session-radar');
  }
}
