import { expect, type Locator, type Page } from '@playwright/test';
import { AppPage } from './app-page';

export type FirstRunStepTitle =
  'Set up the vault' | 'Add an agent credential' | 'Create a workspace' | 'Start a session';

/** The Overview: the first-run checklist (on a new Nexus), Needs you, and the fleet's counts. */
export class OverviewPage {
  readonly app: AppPage;
  readonly firstRun: Locator;
  readonly needsYou: Locator;
  constructor(readonly page: Page) {
    this.app = new AppPage(page);
    this.firstRun = page.getByRole('region', { name: 'Get started' });
    this.needsYou = page.getByRole('region', { name: /^Needs you/ });
  }

  async open(): Promise<void> {
    await this.app.goTo('Overview');
  }

  /** One step of the checklist: its list item (its link, its "Done" or "To do"). */
  step(title: FirstRunStepTitle): Locator {
    return this.firstRun.getByRole('listitem').filter({ has: this.page.getByRole('link', { name: title }) });
  }

  stepState(title: FirstRunStepTitle): Locator {
    return this.step(title).getByTestId('first-run-state');
  }

  /** Follows a step's link to the page that does it. */
  async follow(title: FirstRunStepTitle): Promise<void> {
    await this.step(title).getByRole('link', { name: title }).click();
    await expect(this.firstRun).toHaveCount(0);
  }

  /** The Needs-you item of the app's own state ('vault', 'docker', 'nats') or of the review queue. */
  notice(kind: 'vault' | 'docker' | 'nats' | 'review'): Locator {
    return this.needsYou.locator(`li[data-needs-you="${kind}"]`);
  }
}
