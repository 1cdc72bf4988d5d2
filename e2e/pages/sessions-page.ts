import { expect, type Locator, type Page } from '@playwright/test';

/**
 * The Sessions page: the list (a listbox grouped by workspace, with filters and a name search) beside
 * the selected session (terminal, send box, push, changes); the create form folds above them.
 */
export class SessionsPage {
  constructor(readonly page: Page) {}

  /** The create form, unfolded. */
  async newSessionForm(): Promise<Locator> {
    // The New session toggle (beside it, Try it N ways is a toggle of the same kind).
    const toggle = this.page
      .locator('details.session-create-toggle')
      .filter({ has: this.page.locator('summary', { hasText: /^New session$/ }) });
    if ((await toggle.count()) && !(await toggle.evaluate((d) => (d as HTMLDetailsElement).open)))
      await toggle.locator('summary').click();
    const form = this.page.getByRole('form', { name: 'New session' });
    await expect(form).toBeVisible();
    return form;
  }

  /** The workspaces the create form offers. */
  async workspaceChoices(): Promise<Locator> {
    return (await this.newSessionForm()).locator('select[name="workspace"] option');
  }

  /** Fills and submits the form; `agent` picks the CLI by its label (else the workspace's default). */
  async create(workspace: string, name: string, initialMessage: string, opts: { agent?: string } = {}): Promise<void> {
    const form = await this.newSessionForm();
    const select = form.locator('select[name="workspace"]');
    if (await select.count()) await select.selectOption(workspace);
    else await form.locator('input[name="workspace"]').fill(workspace);
    await form.locator('input[name="name"]').fill(name);
    if (opts.agent) await form.locator('select[name="agent"]').selectOption({ label: opts.agent });
    await form.locator('textarea[name="initialMessage"]').fill(initialMessage);
    await form.getByRole('button', { name: 'Create session' }).click();
  }

  /** The listbox of sessions. */
  list(): Locator {
    return this.page.getByRole('listbox', { name: 'Sessions' });
  }

  row(name: string): Locator {
    return this.list().locator(`[role="option"][data-session="${name}"]`);
  }

  /** The names of the sessions the list shows, in order. */
  async names(): Promise<string[]> {
    return this.list()
      .locator('[role="option"]')
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['session'] ?? ''));
  }

  /** The selected session's detail beside the list. */
  detail(name: string): Locator {
    return this.page.getByRole('region', { name: new RegExp(`Session ${name}`) });
  }

  /** Shows only the sessions at one level ('All', 'Needs you', 'Working', 'Idle', 'Offline'). */
  async filter(label: string): Promise<void> {
    await this.page.getByRole('group', { name: 'Show sessions' }).getByRole('button', { name: label }).click();
  }

  async search(text: string): Promise<void> {
    await this.page.getByRole('searchbox', { name: 'Search sessions by name' }).fill(text);
  }

  state(name: string): Locator {
    return this.row(name).getByTestId('session-state');
  }

  async open(name: string): Promise<void> {
    await this.row(name).click();
    await expect(this.detail(name)).toBeVisible();
  }

  async send(text: string): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Send a message' });
    await form.locator('textarea[name="message"]').fill(text);
    await form.getByRole('button', { name: 'Send' }).click();
    await expect(form.getByTestId('send-result')).toHaveText('Delivered');
  }

  /** The selected session's terminal: the live one, or the read-only capture while it is not running. */
  terminal(): Locator {
    return this.page.getByTestId('session-terminal').or(this.page.getByTestId('session-pane')).first();
  }

  /** The live terminal's screen, once the terminal is connected. */
  async liveScreen(): Promise<Locator> {
    await expect(this.page.getByTestId('terminal-state')).toHaveText('Live', { timeout: 30_000 });
    return this.page.getByTestId('session-terminal').locator('.xterm-rows');
  }

  /** What the session shows: the live terminal's screen, or the pane capture while it is not connected. */
  pane(): Locator {
    return this.page.getByTestId('session-terminal').locator('.xterm-rows').or(this.page.getByTestId('session-pane'));
  }
}
