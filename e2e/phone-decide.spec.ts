import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { join } from 'node:path';
import { devices, type BrowserContext, type Page, type Worker } from '@playwright/test';
import type { ContentBlock, Message, ModelApi, ModelRequest } from '../test/helpers/model-api';
import { phoneKeys, startPushEndpoint } from '../test/helpers/push-endpoint';
import { startTunnel } from '../test/helpers/tunnel';
import { startRealAgentWorkspace } from './fixtures/real-agent-workspace';
import { expect, test } from './fixtures/nexus';
import { launchPhoneBrowser, registerAndSignIn, virtualAuthenticator } from './fixtures/phone';
import { PermissionRequests } from './pages/permission-requests';

const NOTE = 'Not from the phone, please: ask me at the computer.';

/** A request's last user message (the CLI also puts `system` messages in the list). */
function lastUser(req: ModelRequest): Message | undefined {
  return [...(req.body.messages ?? [])].reverse().find((m) => m.role === 'user');
}

/** The tool_result for `toolUseId` in a request's last user message, if it carries one. */
function toolResult(req: ModelRequest, toolUseId: string): ContentBlock | undefined {
  const last = lastUser(req);
  if (!last || typeof last.content === 'string') return undefined;
  return last.content.find((b) => b.type === 'tool_result' && b.tool_use_id === toolUseId);
}

/**
 * The scripted model: three Bash calls in a row, each asked for once the previous one has its result
 * (`pushed`, decided from the notification; `allowed`, Allow on the phone page; `denied`, Deny with a
 * note there), then "Done.". Each touches a file (so the CLI asks; a bare echo it would run unasked)
 * and says its word.
 */
function scriptModel(api: ModelApi, steps: readonly { id: string; command: string }[], opening: string): void {
  api.onTurn((req) => {
    const last = lastUser(req);
    const answered = steps.findIndex((s) => toolResult(req, s.id) !== undefined);
    const next =
      answered >= 0 ? steps[answered + 1] : JSON.stringify(last?.content).includes(opening) ? steps[0] : null;
    if (!next) return { text: answered >= 0 ? 'Done.' : 'OK.' };
    return { toolUse: { id: next.id, name: 'Bash', input: { command: next.command, description: 'Say a word' } } };
  });
}

/** base64url without padding, as a VAPID `k=` and a JWT carry it. */
const b64url = (s: string): Buffer => Buffer.from(s, 'base64url');

/** Checks a VAPID Authorization header (RFC 8292): ES256 JWT signed by `key`, its audience and subject. */
function vapidClaims(header: string, key: string): { aud: string; sub: string; exp: number } {
  const m = /^vapid t=([^,]+), k=(.+)$/.exec(header);
  expect(m, header).not.toBeNull();
  const [jwt = '', k = ''] = [m?.[1], m?.[2]];
  expect(k).toBe(key);
  const [head = '', body = '', sig = ''] = jwt.split('.');
  expect(JSON.parse(b64url(head).toString())).toMatchObject({ alg: 'ES256', typ: 'JWT' });
  const point = b64url(k);
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  expect(
    verify('sha256', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, b64url(sig)),
  ).toBe(true);
  return JSON.parse(b64url(body).toString()) as { aud: string; sub: string; exp: number };
}

/** What the page sees of its service worker's notifications. */
function shownNotifications(phone: Page) {
  return phone.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      actions: ((n as unknown as { actions?: { action: string; title: string }[] }).actions ?? []).map((a) => a.action),
      data: n.data as { requestId?: string; sessionId?: string; toolName?: string },
    })),
  );
}

/** The bits of a service worker's global scope the action needs (not in the DOM lib). */
interface WorkerScope {
  registration: { getNotifications(filter?: { tag?: string }): Promise<{ body: string; tag: string }[]> };
  dispatchEvent(e: Event): boolean;
  NotificationEvent: new (type: string, init: { notification: unknown; action: string }) => Event;
}

/**
 * Fires a notification's action in the real service worker, as the system does when the operator taps
 * it: a `notificationclick` NotificationEvent with that action, dispatched in the worker (headless
 * Chromium cannot tap a notification). Synthetic events may not extend their lifetime, so `waitUntil`
 * is captured on the event and awaited here; what the worker showed afterwards is returned.
 */
async function tapAction(worker: Worker, tag: string, action: 'allow' | 'deny'): Promise<string[]> {
  return worker.evaluate(
    async ({ tag, action }) => {
      const scope = globalThis as unknown as WorkerScope;
      const [notification] = await scope.registration.getNotifications({ tag });
      if (!notification) throw new Error(`no notification tagged ${tag}`);
      const event = new scope.NotificationEvent('notificationclick', { notification, action });
      let work: Promise<unknown> = Promise.resolve();
      Object.defineProperty(event, 'waitUntil', { value: (p: Promise<unknown>) => void (work = p) });
      scope.dispatchEvent(event);
      await work;
      return (await scope.registration.getNotifications()).map((n) => n.body);
    },
    { tag, action },
  );
}

async function serviceWorkerOf(context: BrowserContext): Promise<Worker> {
  return context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
}

// Playwright requires an object pattern here, even when the test uses no fixture.
// eslint-disable-next-line no-empty-pattern
test('decides real agent permission requests from the phone: a push notification’s Allow, Allow and Deny with a note on the page', async ({}, testInfo) => {
  test.setTimeout(1_200_000);
  const tunnel = await startTunnel();
  const push = await startPushEndpoint();
  // The phone's side of its push subscription: a P-256 key pair and an auth secret (RFC 8291).
  const sub = phoneKeys();
  const w = await startRealAgentWorkspace({ NEXUS_PUBLIC_ORIGIN: tunnel.origin });
  const { nexus, name } = w;
  const { api } = w.env;
  tunnel.forwardTo(Number(new URL(nexus.url).port));
  const browser = await launchPhoneBrowser(tunnel);
  const tag = randomBytes(3).toString('hex');
  const step = (word: string) => ({
    id: `toolu_${word}_${tag}`,
    command: `touch /tmp/${word}-${tag} && echo ${word}-${tag}`,
  });
  const steps = [step('pushed'), step('allowed'), step('denied')] as const;
  const opening = 'Please say the three words.';
  const ran = (word: string): boolean => {
    try {
      execFileSync('docker', ['exec', w.containerId, 'test', '-e', `/tmp/${word}-${tag}`]);
      return true;
    } catch {
      return false;
    }
  };
  const shot = async (phone: Page, label: string): Promise<void> =>
    void (await testInfo.attach(label, { body: await phone.screenshot(), contentType: 'image/png' }));
  try {
    scriptModel(api, steps, opening);
    await nexus.rpc('phone.setEnabled', { enabled: true });
    const { url: link } = await nexus.rpc<{ url: string }>('phone.invite', { name: 'Pixel 7' });

    // The phone: Pixel 7 emulation, its passkey in Chromium's virtual authenticator.
    const context = await browser.newContext({ ...devices['Pixel 7'] });
    await context.grantPermissions(['notifications'], { origin: tunnel.origin });
    // Headless Chromium here refuses PushManager.subscribe() outright ("Registration failed -
    // permission denied", before any GCM request; docs/remote.md), and a real one would go to Google's
    // push service. So the phone's own "Notify me" path runs with a subscription whose keys the test
    // made (P-256 + auth secret) and whose endpoint is the local push service: the page fetches
    // Nexus's VAPID key, "subscribes" and registers it with its CSRF token, as it does on a phone.
    // Everything after is the product's: Nexus's encryption and VAPID signature (the test decrypts and
    // verifies them), the installed service worker's push handler (CDP deliverPushMessage hands it the
    // decrypted payload, as the browser's push service would), its Allow action and the decision.
    await context.addInitScript(
      ({ endpoint, keys }) => {
        const w = window as unknown as { __serverKey?: string };
        PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
          const key = new Uint8Array(options?.applicationServerKey as ArrayBuffer);
          w.__serverKey = btoa(String.fromCharCode(...key))
            .replace(/\+/g, '-')
            .replace(/\//g, '_')
            .replace(/=+$/, '');
          return { endpoint, toJSON: () => ({ endpoint, expirationTime: null, keys }) } as unknown as PushSubscription;
        };
      },
      { endpoint: push.url, keys: sub.keys },
    );
    const phone = await context.newPage();
    await virtualAuthenticator(phone);
    await registerAndSignIn(phone, link);
    await phone.getByRole('button', { name: 'Notify me' }).click();
    await expect(phone.getByTestId('phone-push-state')).toHaveText('Notifications on.');
    const serverKey = await phone.evaluate(() => (window as unknown as { __serverKey?: string }).__serverKey ?? '');
    expect(serverKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    const worker = await serviceWorkerOf(context);

    // 1. A real session asks to run a command: the local push service gets Nexus's encrypted message.
    const session = await nexus.rpc<{ id: string }>('sessions.create', {
      workspace: name,
      name: 'asker',
      initialMessage: opening,
    });
    const messages = () => push.received.map((r) => JSON.parse(sub.decrypt(r.body)) as Record<string, unknown>);
    await expect.poll(() => messages().length, { timeout: 300_000 }).toBeGreaterThan(0);
    const [held] = (await nexus.rpc<{ requests: { id: string; sessionId: string }[] }>('permissions.list', {}))
      .requests;
    expect(held?.sessionId).toBe(session.id);
    const [first] = push.received;
    expect(first?.headers['content-encoding']).toBe('aes128gcm');
    const claims = vapidClaims(String(first?.headers.authorization), serverKey);
    expect(claims.aud).toBe(new URL(push.url).origin);
    expect(claims.sub).toBe(tunnel.origin);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    const message = messages()[0];
    expect(message).toMatchObject({ kind: 'permission', sessionId: session.id, requestId: held?.id, toolName: 'Bash' });
    expect(message?.title).toContain('asker');
    expect(message?.title).toContain('Bash');

    // The same request on the phone's Needs you.
    const perms = new PermissionRequests(phone);
    await phone.reload();
    await expect(perms.request(steps[0].command)).toBeVisible({ timeout: 30_000 });
    await shot(phone, 'phone-needs-you-request');
    // A storm is one notification per session: however often the fleet's state is told meanwhile.
    await phone.waitForTimeout(7_000);
    expect(push.received).toHaveLength(1);

    // The decrypted message goes into the real installed worker (CDP ServiceWorker.deliverPushMessage):
    // it shows a notification with Allow and Deny.
    const cdp = await context.newCDPSession(phone);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
    await cdp.send('ServiceWorker.enable');
    await expect.poll(() => registrations.find((r) => r.scopeURL === `${tunnel.origin}/`)).toBeTruthy();
    const registrationId = registrations.find((r) => r.scopeURL === `${tunnel.origin}/`)?.registrationId ?? '';
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: tunnel.origin,
      registrationId,
      data: sub.decrypt(first?.body ?? Buffer.alloc(0)),
    });
    await expect
      .poll(() => shownNotifications(phone))
      .toEqual([
        {
          title: message?.title,
          body: message?.body,
          tag: `session:${session.id}`,
          actions: ['allow', 'deny'],
          data: expect.objectContaining({ requestId: held?.id }),
        },
      ]);
    await testInfo.attach('phone-notification', {
      body: JSON.stringify(await shownNotifications(phone), null, 2),
      contentType: 'application/json',
    });

    // Its Allow decides through the signed-in session: the command runs, its output reaches the model.
    expect(await tapAction(worker, `session:${session.id}`, 'allow')).toEqual(['Bash: Allowed.']);
    const afterPush = await api.waitForRequest((r) => toolResult(r, steps[0].id) !== undefined, 60_000);
    expect(toolResult(afterPush, steps[0].id)?.is_error).not.toBe(true);
    expect(JSON.stringify(toolResult(afterPush, steps[0].id)?.content)).toContain(`pushed-${tag}`);
    // A stale action, and the same decision replayed by the page: "already decided", nothing runs twice.
    const again = await phone.evaluate(async (requestId) => {
      const worker = (await navigator.serviceWorker.ready).active;
      const channel = new MessageChannel();
      const answer = new Promise<string>((resolve) => (channel.port1.onmessage = (e) => resolve(String(e.data))));
      worker?.postMessage({ type: 'decide', data: { requestId, toolName: 'Bash' }, action: 'allow' }, [channel.port2]);
      return answer;
    }, held?.id);
    expect(again).toBe('Already decided.');
    const replayed = await phone.evaluate(async (id) => {
      const { csrf } = (await (await fetch('/api/phone/session')).json()) as { csrf: string };
      const res = await fetch('/api/rpc/permissions.decide', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-nexus-csrf': csrf },
        body: JSON.stringify({ id, behavior: 'allow' }),
      });
      return res.status;
    }, held?.id);
    expect(replayed).toBe(404);

    // 2. The next request, allowed on the phone's Needs you: its output reaches the model.
    const allowCard = perms.request(steps[1].command);
    await expect(allowCard).toBeVisible({ timeout: 120_000 });
    await expect(allowCard).toContainText('Bash');
    await shot(phone, 'phone-request-allow');
    await perms.allow(allowCard);
    await expect(allowCard).toHaveCount(0);
    const afterAllow = await api.waitForRequest((r) => toolResult(r, steps[1].id) !== undefined, 60_000);
    expect(toolResult(afterAllow, steps[1].id)?.is_error).not.toBe(true);
    expect(JSON.stringify(toolResult(afterAllow, steps[1].id)?.content)).toContain(`allowed-${tag}`);
    await shot(phone, 'phone-decided-allow');

    // 3. The last, denied with a note on the phone: the model reads the note, the command did not run.
    const denyCard = perms.request(steps[2].command);
    await expect(denyCard).toBeVisible({ timeout: 120_000 });
    await perms.denyWithNote(denyCard, NOTE);
    await expect(denyCard).toHaveCount(0);
    const afterDeny = await api.waitForRequest((r) => toolResult(r, steps[2].id) !== undefined, 60_000);
    const denial = toolResult(afterDeny, steps[2].id);
    expect(denial?.is_error).toBe(true);
    expect(JSON.stringify(denial?.content)).toContain(NOTE);
    expect(ran('denied')).toBe(false);
    expect(ran('allowed')).toBe(true);
    await shot(phone, 'phone-decided-deny');

    // 4. The session's live terminal on the phone, as its notification opens it: the WebSocket on the
    // public origin behind the passkey session (its CSRF token offered as a subprotocol).
    await phone.goto(`${tunnel.origin}/#/sessions/${session.id}`);
    await expect(phone.getByTestId('terminal-state')).toHaveText('Live', { timeout: 30_000 });
    await expect(phone.getByTestId('session-terminal').locator('.xterm-rows')).toContainText('Done.', {
      timeout: 30_000,
    });
    await shot(phone, 'phone-terminal-live');
    // What stays on the computer is not offered: no New session, no Delete session, no Push branch.
    for (const name of ['Delete session', 'Push branch'])
      await expect(phone.getByRole('button', { name }), name).toHaveCount(0);
    await expect(phone.getByText('New session')).toHaveCount(0);

    // Revoked, the phone's open terminal closes within seconds (its session is checked while it is open).
    const { devices: phones } = await nexus.rpc<{ devices: { id: string }[] }>('phone.devices', {});
    await nexus.rpc('phone.revoke', { id: phones[0]?.id });
    await expect(phone.getByTestId('terminal-state')).toHaveText(/^Ended: Signed out/, { timeout: 15_000 });

    // Every remote decision is in the activity log under the phone's name.
    const db = new Database(join(nexus.dataDir, 'nexus.db'), { readonly: true });
    try {
      const rows = db
        .prepare("SELECT actor, outcome FROM audit WHERE operation = 'remote:permissions.decide' ORDER BY at")
        .all() as { actor: string; outcome: string }[];
      expect(rows.map((r) => r.outcome)).toEqual(['ok', 'not_found', 'not_found', 'ok', 'ok']);
      expect(new Set(rows.map((r) => r.actor)).size).toBe(1);
      expect(rows[0]?.actor).toMatch(/^phone:/);
      const opened = db.prepare("SELECT actor, outcome FROM audit WHERE operation = 'remote:terminal'").all() as {
        actor: string;
        outcome: string;
      }[];
      expect(opened.length).toBeGreaterThan(0);
      expect(new Set(opened.map((o) => `${o.actor} ${o.outcome}`))).toEqual(new Set([`${rows[0]?.actor} ok`]));
    } finally {
      db.close();
    }
  } finally {
    // Every push Nexus sent in this run, decrypted (one per time the session started needing you).
    await testInfo.attach('push-messages', {
      body: JSON.stringify(
        push.received.map((r) => JSON.parse(sub.decrypt(r.body)) as unknown),
        null,
        2,
      ),
      contentType: 'application/json',
    });
    await testInfo.attach('model-requests', {
      body: JSON.stringify(
        api.turns().map((r) => r.body.messages?.at(-1)),
        null,
        2,
      ),
      contentType: 'application/json',
    });
    await browser.close();
    await w.stop();
    await push.close();
    await tunnel.close();
  }
});
