import { randomBytes } from 'node:crypto';
import { geminiFunctionResponses, geminiUserTexts, type GeminiRequest } from '../test/helpers/gemini-api';
import { startRealAgentWorkspace } from './fixtures/real-agent-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { PermissionRequests } from './pages/permission-requests';
import { SessionsPage } from './pages/sessions-page';

// A Gemini CLI session (ACP) made from the New session form against the real, pinned Gemini CLI (0.61.0); the
// model is the scripted Gemini API stand-in. The session page shows the structured view: the prompt, the agent's
// words, a tool card, and the permission card answered inline; the same session at a phone's size. Gemini CLI 0.61
// reports no plan over ACP (its bundle has no `plan` update): the plan's rendering is structured-view.browser.test's.
const ASK = 'Please write the marker file.';

test('a Gemini CLI session from the form: its structured view shows the tool card and the permission answered inline, also at a phone size', async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(900_000);
  const w = await startRealAgentWorkspace({}, { gemini: true });
  const { nexus, name } = w;
  const api = w.env.geminiApi;
  const marker = `gemini-said-${randomBytes(4).toString('hex')}`;
  api.onTurn((r: GeminiRequest) => {
    if (geminiFunctionResponses(r).length > 0) return { text: `Done: ${marker}.` };
    if (geminiUserTexts(r).includes(ASK))
      return {
        toolUse: {
          name: 'run_shell_command',
          input: { command: `echo ${marker} > marker.txt`, description: 'write it' },
        },
      };
    return { text: 'OK.' };
  });
  try {
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    const form = await sessions.newSessionForm();
    await form.locator('select[name="workspace"]').selectOption(name);
    await sessions.create(name, 'gem', ASK, { agent: 'Gemini CLI' });
    await expect(sessions.row('gem').getByTestId('session-agent')).toHaveText('Gemini CLI', { timeout: 60_000 });
    await sessions.open('gem');

    const view = page.getByTestId('structured-view');
    await expect(view).toBeVisible();
    await expect(view.getByTestId('transcript-user').first()).toContainText(ASK, { timeout: 300_000 });
    const permission = view.getByTestId('transcript-permission').first();
    await expect(permission).toHaveAttribute('data-outcome', 'pending', { timeout: 300_000 });
    await expect(view.getByTestId('transcript-tool').first()).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('gemini-permission-inline.png') });
    // Answered on its item, with the same card every permission request has.
    await new PermissionRequests(page).allow(permission.getByTestId('permission-request'));
    await expect(permission).toHaveAttribute('data-outcome', 'allowed', { timeout: 60_000 });
    await expect(view.getByTestId('transcript-agent').last()).toContainText(`Done: ${marker}.`, { timeout: 120_000 });
    await expect(view.getByTestId('tool-status').first()).toHaveText(/done|completed/i);
    await expect(view.getByTestId('transcript-turn-end').last()).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('gemini-structured-view.png') });

    // The same session on a phone-sized page.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const small = await phone.newPage();
      const phoneApp = new AppPage(small);
      await phoneApp.open(nexus.loginUrl);
      await phoneApp.goTo('Sessions');
      await new SessionsPage(small).open('gem');
      const phoneView = small.getByTestId('structured-view');
      await expect(phoneView.getByTestId('transcript-agent').last()).toContainText(`Done: ${marker}.`);
      await expect(phoneView.getByTestId('transcript-permission').first()).toHaveAttribute('data-outcome', 'allowed');
      const width = await small.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
      await small.screenshot({ path: testInfo.outputPath('gemini-phone.png') });
    } finally {
      await phone.close();
    }
  } finally {
    await w.stop();
  }
});
