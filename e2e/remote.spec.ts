import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Browser, MemoryClaude } from '../test/helpers/oauth-client';
import { startTunnel } from '../test/helpers/tunnel';
import { expect, startNexus, test } from './fixtures/nexus';
import { RemoteAccessPage } from './pages/remote-access-page';

test('approves a waiting Claude connector in Settings → Access, shows the grant, its last use and its activity, and revokes it', async ({
  page,
}) => {
  const tunnel = await startTunnel();
  const nexus = await startNexus({ NEXUS_PUBLIC_ORIGIN: tunnel.origin });
  tunnel.forwardTo(Number(new URL(nexus.url).port));
  const mcpUrl = `${tunnel.origin}/api/mcp`;
  const call = (token: string) =>
    tunnel.fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_nexus_info', arguments: {} },
      }),
    });
  try {
    // Claude registers and sends the user's browser to the authorize page: it shows a code only.
    const claude = new MemoryClaude();
    expect(await auth(claude, { serverUrl: mcpUrl, fetchFn: tunnel.fetch })).toBe('REDIRECT');
    const phone = new Browser(tunnel.fetch);
    const consent = new URL(
      (await phone.get(claude.authorizationUrl as URL)).headers.get('location') ?? '',
      tunnel.origin,
    );
    const shown = /class="code">([A-Z0-9-]+)</.exec(await (await phone.get(consent)).text())?.[1] ?? '';
    expect(shown).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);

    const remote = new RemoteAccessPage(page);
    await remote.app.open(nexus.loginUrl);
    await remote.app.goTo('Overview');
    await expect(page.getByTestId('connectors-waiting')).toContainText(shown);
    await remote.open();
    await expect(remote.section.getByTestId('connector-url')).toHaveText(mcpUrl);
    await expect(remote.pending(shown)).toContainText('Claude');
    await expect(remote.pending(shown)).toContainText('claude.ai');
    await expect(remote.pending(shown).getByLabel('Class')).toHaveValue('read');
    await remote.approve(shown, 'write');
    await expect(remote.grant('Claude')).toContainText('write');
    await expect(remote.grant('Claude')).toContainText('last used never');

    // The phone's page moves on; Claude gets its code and tokens and calls a tool.
    const resume = await phone.get(consent);
    const back = await phone.get(new URL(resume.headers.get('location') ?? '', tunnel.origin));
    const code = new URL(back.headers.get('location') ?? '').searchParams.get('code') ?? '';
    expect(await auth(claude, { serverUrl: mcpUrl, authorizationCode: code, fetchFn: tunnel.fetch })).toBe(
      'AUTHORIZED',
    );
    const token = claude.saved?.access_token ?? '';
    expect((await call(token)).status).toBe(200);

    await page.reload();
    await remote.open();
    await expect(remote.grant('Claude')).not.toContainText('last used never');
    // Its activity: the call, by the connector, without what it returned.
    const activity = page.getByTestId('settings-activity');
    await activity.getByLabel('Caller').selectOption('connector');
    const entry = activity.getByTestId('activity-entry').filter({ hasText: 'mcp:get_nexus_info' });
    await expect(entry.first()).toContainText('connector “Claude”');
    await expect(entry.first()).toContainText('ok');
    await remote.revoke('Claude');
    await expect(remote.grant('Claude')).toContainText('revoked');
    expect((await call(token)).status).toBe(401);
  } finally {
    await nexus.stop();
    await tunnel.close();
  }
});
