import { randomBytes } from 'node:crypto';
import { devices } from '@playwright/test';
import { startTunnel } from '../test/helpers/tunnel';
import { geminiFunctionResponses, geminiUserTexts, type GeminiRequest } from '../test/helpers/gemini-api';
import { launchPhoneBrowser, registerAndSignIn, virtualAuthenticator } from './fixtures/phone';
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

test('a Gemini CLI session from the form: its structured view shows the tool card and the permission answered inline, the same session on the phone', async ({
  page,
}, testInfo) => {
  test.setTimeout(900_000);
  const tunnel = await startTunnel();
  const w = await startRealAgentWorkspace({ NEXUS_PUBLIC_ORIGIN: tunnel.origin }, { gemini: true });
  tunnel.forwardTo(Number(new URL(w.nexus.url).port));
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

    // The same session on the phone: the public origin (the tunnel stand-in), signed in with a passkey.
    await nexus.rpc('phone.setEnabled', { enabled: true });
    const { url: link } = await nexus.rpc<{ url: string }>('phone.invite', { name: 'Pixel 7' });
    const phoneBrowser = await launchPhoneBrowser(tunnel);
    try {
      const phone = await (await phoneBrowser.newContext({ ...devices['Pixel 7'] })).newPage();
      await virtualAuthenticator(phone);
      await registerAndSignIn(phone, link);
      const { id } = await nexus.rpc<{ id: string }>('sessions.get', { session: `${name}/gem` });
      await phone.goto(`${tunnel.origin}/#/sessions/${id}`);
      const phoneView = phone.getByTestId('structured-view');
      await expect(phoneView.getByTestId('transcript-agent').last()).toContainText(`Done: ${marker}.`, {
        timeout: 60_000,
      });
      await expect(phoneView.getByTestId('transcript-permission').first()).toHaveAttribute('data-outcome', 'allowed');
      await expect(phoneView.getByTestId('transcript-tool').first()).toBeVisible();
      await phone.screenshot({ path: testInfo.outputPath('gemini-phone.png') });
    } finally {
      await phoneBrowser.close();
    }
  } finally {
    await w.stop();
    await tunnel.close();
  }
});
