import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TERMINAL_CSRF_PROTOCOL_PREFIX, TERMINAL_PROTOCOL, terminalPath } from '../../shared/terminal';
import { startRemoteNexus, type RemoteNexus } from '../../test/helpers/remote';
import { SoftPasskey } from '../../test/helpers/soft-passkey';
import { phoneKeys, startPushEndpoint } from '../../test/helpers/push-endpoint';
import { waitFor } from '../../test/helpers/wait';
import { PHONE_COOKIE } from '../core/phone/phone-front';
import type { PermissionRequestsDeps } from '../core/permissions/permission-requests';

interface Signed {
  cookie: string;
  csrf: string;
}

describe('the operator UI on the public origin, signed in with a passkey', () => {
  let nexus: RemoteNexus;
  const phone = new SoftPasskey();

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    nexus.fetch(`${nexus.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: nexus.origin, ...headers },
      body: JSON.stringify(body),
    });
  const rpc = (s: Signed, op: string, input: unknown = {}, headers: Record<string, string> = {}) =>
    post(`/api/rpc/${op}`, input, { cookie: `${PHONE_COOKIE}=${s.cookie}`, 'x-nexus-csrf': s.csrf, ...headers });

  const register = async (key: SoftPasskey, name: string): Promise<string> => {
    const invite = await nexus.operator<{ result: { url: string } }>('phone.invite', { name });
    const token = new URL(invite.body.result.url).hash.replace('#/register/', '');
    const options = (await (await post('/api/phone/register/options', { token })).json()) as {
      challenge: string;
      rp: { id: string };
    };
    const res = await post('/api/phone/register', { token, response: key.register(options, nexus.origin) });
    expect(res.status).toBe(200);
    return token;
  };
  const signIn = async (key: SoftPasskey): Promise<{ status: number; signed: Signed | null; setCookie: string }> => {
    const options = (await (await post('/api/phone/signin/options', {})).json()) as { challenge: string; rpId: string };
    const res = await post('/api/phone/signin', { response: key.signIn(options, nexus.origin) });
    const setCookie = res.headers.get('set-cookie') ?? '';
    const cookie = new RegExp(`${PHONE_COOKIE}=([^;]+)`).exec(setCookie)?.[1];
    const body = (await res.json()) as { csrf?: string };
    return { status: res.status, signed: cookie && body.csrf ? { cookie, csrf: body.csrf } : null, setCookie };
  };

  /** A terminal WebSocket upgrade as the tunnel delivers it (the public Host, on Nexus's loopback port). */
  const terminalUpgrade = (headers: Record<string, string>, query = ''): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port: nexus.running.host.port,
        path: `${terminalPath('not-a-uuid')}${query}`,
        headers: {
          host: new URL(nexus.origin).host,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': randomBytes(16).toString('base64'),
          ...headers,
        },
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, body: '' });
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    nexus = await startRemoteNexus();
  });
  afterAll(() => nexus.close());

  it('is off by default: the public Host has no page, no sign-in and no RPC', async () => {
    expect((await nexus.operator<{ result: { enabled: boolean } }>('phone.status')).body.result.enabled).toBe(false);
    expect((await nexus.fetch(`${nexus.origin}/`)).status).toBe(404);
    expect((await post('/api/phone/signin/options', {})).status).toBe(404);
    expect((await post('/api/rpc/permissions.list', {})).status).toBe(404);
    expect((await nexus.operator('phone.invite', { name: 'phone' })).status).toBe(409);
  });

  it('registers a phone from a one-time link, signs it in, and sets a __Host- cookie that is Secure, HttpOnly, Strict', async () => {
    await nexus.operator('phone.setEnabled', { enabled: true });
    const page = await nexus.fetch(`${nexus.origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const token = await register(phone, 'Pixel');
    // The link works once.
    expect((await post('/api/phone/register/options', { token })).status).toBe(401);
    const { status, signed, setCookie } = await signIn(phone);
    expect(status).toBe(200);
    expect(signed).not.toBeNull();
    expect(setCookie).toMatch(/^__Host-nexus-remote=[^;]+; Secure; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/);
    const session = (await (
      await nexus.fetch(`${nexus.origin}/api/phone/session`, {
        headers: { cookie: `${PHONE_COOKIE}=${signed?.cookie}` },
      })
    ).json()) as { signedIn: boolean; device: string };
    expect(session).toMatchObject({ signedIn: true, device: 'Pixel' });
    const devices = await nexus.operator<{ result: { devices: { name: string; activeSessions: number }[] } }>(
      'phone.devices',
    );
    expect(devices.body.result.devices).toEqual([expect.objectContaining({ name: 'Pixel', activeSessions: 1 })]);
  });

  it('lets a signed-in phone call only the allow-listed operations; vault, secrets, tokens, engines and access are 404', async () => {
    const { signed } = await signIn(phone);
    if (!signed) throw new Error('not signed in');
    expect((await rpc(signed, 'permissions.list')).status).toBe(200);
    expect((await rpc(signed, 'attention.get')).status).toBe(200);
    for (const op of [
      'vault.status',
      'vault.unlock',
      'vault.init',
      'secrets.list',
      'tokens.create',
      'tokens.list',
      'agent.get',
      'remote.approve',
      'remote.setOrigin',
      'phone.invite',
      'phone.setEnabled',
      'activity.list',
      'workspaces.create',
      'sessions.push',
      'app.info',
    ]) {
      expect((await rpc(signed, op)).status, op).toBe(404);
    }
    expect(
      (await nexus.fetch(`${nexus.origin}/api/events`, { headers: { cookie: `${PHONE_COOKIE}=${signed.cookie}` } }))
        .status,
    ).toBe(404);
    expect((await nexus.fetch(`${nexus.origin}/?token=${nexus.running.host.token}`)).status).toBe(404);
  });

  it('refuses a state-changing request without the CSRF header or from another Origin', async () => {
    const { signed } = await signIn(phone);
    if (!signed) throw new Error('not signed in');
    expect((await rpc(signed, 'permissions.list', {}, { 'x-nexus-csrf': 'forged' })).status).toBe(403);
    expect((await rpc(signed, 'permissions.list', {}, { origin: 'https://evil.example' })).status).toBe(403);
    const noOrigin = await nexus.fetch(`${nexus.origin}/api/rpc/permissions.list`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: `${PHONE_COOKIE}=${signed.cookie}`,
        'x-nexus-csrf': signed.csrf,
      },
      body: '{}',
    });
    expect(noOrigin.status).toBe(403);
  });

  it('refuses an unregistered passkey, a replayed sign-in, and the local UI cookie', async () => {
    expect((await signIn(new SoftPasskey())).status).toBe(401);
    const options = (await (await post('/api/phone/signin/options', {})).json()) as { challenge: string; rpId: string };
    const answer = phone.signIn(options, nexus.origin);
    expect((await post('/api/phone/signin', { response: answer })).status).toBe(200);
    expect((await post('/api/phone/signin', { response: answer })).status).toBe(401);
    // A passkey answer made for another origin is refused too.
    const other = (await (await post('/api/phone/signin/options', {})).json()) as { challenge: string; rpId: string };
    expect((await post('/api/phone/signin', { response: phone.signIn(other, 'https://evil.example') })).status).toBe(
      401,
    );
    // No local credential is a phone session: the UI cookie and the start token are both refused.
    const local = await nexus.fetch(`${nexus.origin}/api/rpc/permissions.list`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: nexus.origin,
        authorization: `Bearer ${nexus.running.host.token}`,
        cookie: `nexus_session=whatever; ${PHONE_COOKIE}=not-a-session`,
      },
      body: '{}',
    });
    expect(local.status).toBe(401);
  });

  it('decides permission requests from the phone: Allow once (a replay is "already decided"), Deny with a note; the audit names the phone', async () => {
    const { signed } = await signIn(phone);
    if (!signed) throw new Error('not signed in');
    // A fixture-driven request (no worker here): the hook's NATS request, for a session the check accepts.
    const permissions = nexus.running.core.permissions as unknown as { deps: PermissionRequestsDeps };
    permissions.deps.sessionInWorkspace = () => true;
    const replies: string[] = [];
    const at = new Date().toISOString();
    const body = { workspaceId: 'w1', sessionId: 's1', at, toolName: 'Bash', toolInput: { command: 'ls' } };
    const request = nexus.running.core.permissions.ask('w1', new TextEncoder().encode(JSON.stringify(body)), (d) =>
      replies.push(d),
    );
    expect(request).not.toBeNull();
    const decide = { id: request?.id, behavior: 'allow' };
    expect((await rpc(signed, 'permissions.decide', decide)).status).toBe(200);
    expect(replies).toEqual([JSON.stringify({ behavior: 'allow' })]);
    const replay = await rpc(signed, 'permissions.decide', decide);
    expect(replay.status).toBe(404);
    expect(((await replay.json()) as { error: { message: string } }).error.message).toMatch(/decided or expired/);
    // Deny with a note: the agent is told why.
    const second = nexus.running.core.permissions.ask('w1', new TextEncoder().encode(JSON.stringify(body)), (d) =>
      replies.push(d),
    );
    const note = 'Not on main; open a branch first.';
    expect((await rpc(signed, 'permissions.decide', { id: second?.id, behavior: 'deny', note })).status).toBe(200);
    expect(replies.at(-1)).toBe(JSON.stringify({ behavior: 'deny', message: note }));
    nexus.running.core.audit.flush();
    const rows = nexus.running.core.audit.recent(50).map((r) => `${r.actor} ${r.operation} ${r.outcome}`);
    expect(rows).toContain('operator permissions.decide allowed');
    expect(rows).toContain('operator permissions.decide denied_with_note');
    expect(rows.some((r) => /^phone:\S+ remote:permissions\.decide ok$/.test(r))).toBe(true);
    expect(rows.some((r) => /^phone:\S+ phone:signin ok$/.test(r))).toBe(true);
    expect(rows).toContain('anonymous phone:signin unauthorized');
  });

  it('subscribes a signed-in phone to push only with its CSRF token, and says there is no push while the vault is sealed', async () => {
    const { signed } = await signIn(phone);
    if (!signed) throw new Error('not signed in');
    const key = await nexus.fetch(`${nexus.origin}/api/phone/push/key`, {
      headers: { cookie: `${PHONE_COOKIE}=${signed.cookie}` },
    });
    expect(await key.json()).toEqual({ key: null, reason: expect.stringMatching(/vault is sealed/) });
    expect((await nexus.fetch(`${nexus.origin}/api/phone/push/key`)).status).toBe(401);
    const subscription = { endpoint: 'https://push.example.test/abc', keys: { p256dh: 'BCDE', auth: 'AAAA' } };
    const cookie = { cookie: `${PHONE_COOKIE}=${signed.cookie}` };
    expect((await post('/api/phone/push/subscribe', subscription, cookie)).status).toBe(403);
    expect(
      (await post('/api/phone/push/subscribe', subscription, { ...cookie, 'x-nexus-csrf': signed.csrf })).status,
    ).toBe(200);
  });

  it('pushes a permission request to the subscribed phone once the vault is unlocked: the payload names the session and the tool', async () => {
    const { signed } = await signIn(phone);
    if (!signed) throw new Error('not signed in');
    expect((await nexus.operator('vault.init', { passphrase: 'phone push test passphrase 42' })).status).toBe(200);
    const key = (await (
      await nexus.fetch(`${nexus.origin}/api/phone/push/key`, {
        headers: { cookie: `${PHONE_COOKIE}=${signed.cookie}` },
      })
    ).json()) as { key: string | null };
    expect(key.key).toMatch(/^[A-Za-z0-9_-]{80,90}$/);
    const endpoint = await startPushEndpoint();
    try {
      const keys = phoneKeys();
      const subscribed = await post(
        '/api/phone/push/subscribe',
        { endpoint: endpoint.url, keys: keys.keys },
        { cookie: `${PHONE_COOKIE}=${signed.cookie}`, 'x-nexus-csrf': signed.csrf },
      );
      expect(subscribed.status).toBe(200);
      const ask = (sessionId: string) =>
        nexus.running.core.permissions.ask(
          'w1',
          new TextEncoder().encode(
            JSON.stringify({
              workspaceId: 'w1',
              sessionId,
              at: new Date().toISOString(),
              toolName: 'Bash',
              toolInput: {},
            }),
          ),
          () => undefined,
        );
      const first = ask('s-push');
      ask('s-push'); // a storm of prompts on one session: still one notification
      await waitFor(() => endpoint.received.length >= 1, 'the push request');
      await new Promise((r) => setTimeout(r, 300));
      expect(endpoint.received).toHaveLength(1);
      const message = JSON.parse(keys.decrypt(endpoint.received[0]?.body ?? Buffer.alloc(0))) as Record<string, string>;
      expect(message).toMatchObject({
        kind: 'permission',
        sessionId: 's-push',
        toolName: 'Bash',
        requestId: first?.id,
      });
      expect(message.title).toContain('s-push');
      expect(String(endpoint.received[0]?.headers.authorization)).toMatch(/^vapid t=/);
    } finally {
      await endpoint.close();
    }
  });

  it('opens the live terminal on the public origin only for a signed-in phone: its Origin, its CSRF token as a subprotocol', async () => {
    const { signed } = await signIn(phone);
    if (!signed) throw new Error('not signed in');
    const cookie = `${PHONE_COOKIE}=${signed.cookie}`;
    const protocols = `${TERMINAL_PROTOCOL}, ${TERMINAL_CSRF_PROTOCOL_PREFIX}${signed.csrf}`;
    // Admitted, the upgrade reaches the terminal's own checks: this id is no session's (400, not a refusal).
    const admitted = await terminalUpgrade({ cookie, origin: nexus.origin, 'sec-websocket-protocol': protocols });
    expect(admitted).toEqual({ status: 400, body: expect.stringContaining('needs a session id') });
    const refusals: [string, Record<string, string>, number][] = [
      ['no cookie', { origin: nexus.origin, 'sec-websocket-protocol': protocols }, 401],
      [
        'the local UI cookie',
        { cookie: 'nexus_session=x', origin: nexus.origin, 'sec-websocket-protocol': protocols },
        401,
      ],
      ['the start token', { authorization: `Bearer ${nexus.running.host.token}`, origin: nexus.origin }, 401],
      ['another Origin', { cookie, origin: 'https://evil.example', 'sec-websocket-protocol': protocols }, 403],
      ['no Origin', { cookie, 'sec-websocket-protocol': protocols }, 403],
      ['no CSRF token', { cookie, origin: nexus.origin, 'sec-websocket-protocol': TERMINAL_PROTOCOL }, 403],
      [
        'another session’s token',
        { cookie, origin: nexus.origin, 'sec-websocket-protocol': `${TERMINAL_CSRF_PROTOCOL_PREFIX}forged` },
        403,
      ],
    ];
    for (const [what, headers, status] of refusals) expect((await terminalUpgrade(headers)).status, what).toBe(status);
    expect(await terminalUpgrade({ cookie, origin: nexus.origin }, '?token=x')).toEqual({
      status: 400,
      body: expect.stringContaining('query string'),
    });
  });

  it('revoking the phone ends its sessions at once and refuses its passkey', async () => {
    const { signed } = await signIn(phone);
    if (!signed) throw new Error('not signed in');
    const devices = await nexus.operator<{ result: { devices: { id: string }[] } }>('phone.devices');
    const id = devices.body.result.devices[0]?.id;
    await nexus.operator('phone.revoke', { id });
    expect((await rpc(signed, 'permissions.list')).status).toBe(401);
    expect((await signIn(phone)).status).toBe(401);
  });

  it('turning the phone UI off makes the public Host answer 404 again', async () => {
    await nexus.operator('phone.setEnabled', { enabled: false });
    expect((await nexus.fetch(`${nexus.origin}/`)).status).toBe(404);
    expect((await post('/api/phone/signin/options', {})).status).toBe(404);
    expect((await terminalUpgrade({ origin: nexus.origin })).status).toBe(404);
  });
});
