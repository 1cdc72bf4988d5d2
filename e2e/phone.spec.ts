import AxeBuilder from '@axe-core/playwright';
import { devices } from '@playwright/test';
import { startTunnel } from '../test/helpers/tunnel';
import { expect, startNexus, test } from './fixtures/nexus';
import { launchPhoneBrowser, registerAndSignIn, virtualAuthenticator } from './fixtures/phone';
import { RemoteAccessPage } from './pages/remote-access-page';

test('registers a phone passkey from the local UI, signs in on the public origin in mobile Chromium, and is refused once revoked', async ({
  page,
}, testInfo) => {
  const tunnel = await startTunnel();
  const nexus = await startNexus({ NEXUS_PUBLIC_ORIGIN: tunnel.origin });
  tunnel.forwardTo(Number(new URL(nexus.url).port));
  // A phone: Chromium in mobile emulation, the public name resolved to the tunnel stand-in on loopback.
  const browser = await launchPhoneBrowser(tunnel);
  try {
    // On the computer: turn the phone UI on, make a one-time registration link.
    const remote = new RemoteAccessPage(page);
    await remote.app.open(nexus.loginUrl);
    await remote.open();
    // A controlled checkbox: it shows the state Nexus answered, once the change is saved.
    await remote.section.getByTestId('phone-enabled').click();
    await expect(remote.section.getByTestId('phone-enabled')).toBeChecked();
    await expect(remote.section.getByTestId('phone-url')).toHaveText(`${tunnel.origin}/`);
    await remote.section.getByLabel('Phone name').fill('Pixel 7');
    await remote.section.getByRole('button', { name: 'Make a registration link' }).click();
    const link = (await remote.section.getByTestId('phone-invite-url').textContent()) ?? '';
    expect(link).toMatch(new RegExp(`^${tunnel.origin}/#/register/[A-Za-z0-9_-]{43}$`));

    const context = await browser.newContext({ ...devices['Pixel 7'] });
    const phone = await context.newPage();
    await virtualAuthenticator(phone);
    // Without a registered passkey, sign-in is refused.
    await phone.goto(`${tunnel.origin}/`);
    await phone.getByRole('button', { name: 'Sign in with passkey' }).click();
    await expect(phone.getByTestId('phone-message')).not.toBeEmpty();

    await registerAndSignIn(phone, link);
    await expect(phone.getByRole('heading', { name: /Needs you/ })).toBeVisible();
    await testInfo.attach('phone-needs-you', { body: await phone.screenshot(), contentType: 'image/png' });
    const axe = await new AxeBuilder({ page: phone }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual(
      [],
    );
    const cookies = await context.cookies(tunnel.origin);
    expect(cookies.find((c) => c.name === '__Host-nexus-remote')).toMatchObject({
      secure: true,
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    });

    // The service worker installs (the app is installable: manifest, icons, worker).
    const scope = await phone.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${tunnel.origin}/`);
    const manifest = await phone.evaluate(async () => {
      const href = document.querySelector('link[rel="manifest"]')?.getAttribute('href') ?? '';
      return (await (await fetch(href)).json()) as { display: string; icons: unknown[] };
    });
    expect(manifest).toMatchObject({ display: 'standalone' });
    expect(manifest.icons).toHaveLength(2);

    // Push: with the vault not unlocked there is no VAPID key, so no push, and the phone says why.
    await phone.getByRole('button', { name: 'Notify me' }).click();
    await expect(phone.getByTestId('phone-push-state')).toContainText('vault is sealed');
    // A notification's Allow, through the service worker's own action path (headless Chromium cannot
    // click a notification's action; the page hands it to the worker): a stale request is "Already decided."
    const outcome = await phone.evaluate(async () => {
      const worker = (await navigator.serviceWorker.ready).active;
      const channel = new MessageChannel();
      const answer = new Promise<string>((resolve) => (channel.port1.onmessage = (e) => resolve(String(e.data))));
      worker?.postMessage({ type: 'decide', data: { requestId: 'gone-already', toolName: 'Bash' }, action: 'allow' }, [
        channel.port2,
      ]);
      return answer;
    });
    expect(outcome).toBe('Already decided.');

    await phone.getByRole('link', { name: 'Sessions' }).click();
    await testInfo.attach('phone-sessions', { body: await phone.screenshot(), contentType: 'image/png' });
    await phone.getByRole('link', { name: 'Board' }).click();
    await testInfo.attach('phone-board', { body: await phone.screenshot(), contentType: 'image/png' });
    // The local UI's own pages are no page of the phone shell: a link to them shows Needs you.
    for (const page of ['settings', 'vault', 'workspaces', 'activity']) {
      await phone.goto(`${tunnel.origin}/#/${page}`);
      await expect(phone.getByRole('heading', { name: /Needs you/ }), page).toBeVisible();
      await expect(phone.getByRole('heading', { name: /Settings|Vault|Workspaces|Activity/ }), page).toHaveCount(0);
    }

    // Signed in, the vault and the access settings are still no route on the public origin.
    const call = (op: string) =>
      phone.evaluate(async (name) => {
        const session = (await (await fetch('/api/phone/session')).json()) as { csrf: string };
        const res = await fetch(`/api/rpc/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-nexus-csrf': session.csrf },
          body: '{}',
        });
        return res.status;
      }, op);
    expect(await call('permissions.list')).toBe(200);
    for (const op of ['vault.status', 'vault.unlock', 'secrets.list', 'tokens.list', 'phone.invite', 'remote.grants'])
      expect(await call(op), op).toBe(404);

    // On the computer: the phone is listed; Revoke ends its session at once.
    await page.reload();
    await remote.open();
    const device = remote.section.getByTestId('phone-device').filter({ hasText: 'Pixel 7' });
    await expect(device).toContainText('1 signed in');
    await device.getByRole('button', { name: 'Revoke' }).click();
    await expect(device).toContainText('revoked');
    expect(await call('permissions.list')).toBe(401);
    await phone.reload();
    await phone.getByRole('button', { name: 'Sign in with passkey' }).click();
    await expect(phone.getByTestId('phone-message')).toContainText('not registered');
    await testInfo.attach('phone-revoked', { body: await phone.screenshot(), contentType: 'image/png' });
  } finally {
    await browser.close();
    await nexus.stop();
    await tunnel.close();
  }
});
