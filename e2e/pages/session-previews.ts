import type { Locator, Page } from '@playwright/test';

/** The selected session's previews: links to each port's own origin, and screenshots (also before / after in its turns). */
export class SessionPreviews {
  constructor(readonly page: Page) {}

  panel(): Locator {
    return this.page.getByTestId('session-previews');
  }

  link(port: number): Locator {
    return this.panel().locator(`[data-testid="preview"][data-port="${port}"]`).getByRole('link');
  }

  /** The before / after screenshots beside the turns' diffs. */
  beforeAfter(): Locator {
    return this.page.getByTestId('session-turns').getByTestId('preview-before-after');
  }
}
