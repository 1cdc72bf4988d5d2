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
    await expect(this.comments().getByTestId('review-sent')).toBeVisible({ timeout: 30_000 });
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
    // The restore checkpoints first and waits for the agent's inbox to take the notice (up to 10 s).
    await expect(this.turns().getByTestId('restore-result')).toBeVisible({ timeout: 30_000 });
  }

  radar(): Locator {
    return this.page.getByTestId('session-radar');
  }

  /** Starts one prompt as `n` attempts (the kinds the form starts with, repeated) from "Try it N ways". */
  async tryItNWays(group: string, prompt: string, n: number): Promise<void> {
    await this.page.locator('details.session-create-toggle', { hasText: 'Try it N ways' }).locator('summary').click();
    const form = this.page.getByRole('form', { name: 'Try it N ways' });
    await form.locator('input[name="group"]').fill(group);
    for (let i = 2; i < n; i++) await form.getByRole('button', { name: 'Add an attempt' }).click();
    await form.locator('textarea[name="prompt"]').fill(prompt);
    await form.getByRole('button', { name: `Start ${n} attempts` }).click();
  }

  /** A group's compare table (its attempts side by side). */
  attemptGroup(name: string): Locator {
    return this.page.locator(`[data-testid="attempt-group"][data-group="${name}"]`);
  }

  /** "Keep this one" on the attempt in column `position` (1-based), confirmed. */
  async keep(group: string, position: number): Promise<void> {
    const g = this.attemptGroup(group);
    await g
      .getByRole('button', { name: 'Keep this one' })
      .nth(position - 1)
      .click();
    await g.getByRole('button', { name: 'Keep it, delete the others' }).click();
  }
}
