import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FleetAttention, SessionAttention } from '../../../shared/attention';
import type { PermissionRequest } from '../../../shared/contract';
import { tempDir } from '../../../test/helpers/temp-dir';
import { phoneKeys } from '../../../test/helpers/push-endpoint';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { openStore } from '../store/open';
import type { Db } from '../store/open';
import { open } from '../vault/crypto';
import type { Dek } from '../vault/dek';
import { PhonePush, type PushMessage } from './phone-push';
import { PhoneStore } from './phone-store';

const session = (id: string, name: string, reason: string): SessionAttention =>
  ({
    sessionId: id,
    sessionName: name,
    workspaceName: 'api',
    level: 'needs_you',
    reason,
    since: null,
  }) as SessionAttention;
const fleet = (needsYou: SessionAttention[], sessions = needsYou): FleetAttention =>
  ({
    counts: { needs_you: needsYou.length, working: 0, idle: 0, offline: 0 },
    needsYou,
    sessions,
    review: {},
  }) as FleetAttention;
const request = (id: string, sessionId: string, toolName: string): PermissionRequest =>
  ({ id, sessionId, workspaceId: 'w1', toolName, toolInput: {}, askedAt: '', expiresAt: '' }) as PermissionRequest;

const GRACE_MS = 200;
const decrypted = (s: { body: Buffer }) => JSON.parse(phone.decrypt(s.body)) as PushMessage;
const phone = phoneKeys();

describe('push notifications to signed-in phones', () => {
  const dir = tempDir();
  let db: Db;
  let store: PhoneStore;
  let dek: Dek | null;
  let sent: { endpoint: string; headers: Record<string, string>; body: Buffer }[];
  let push: PhonePush;

  beforeEach(() => {
    db = openStore(join(dir.path, 'nexus.db'));
    store = new PhoneStore(db);
    dek = { term: 1, key: randomBytes(32) };
    sent = [];
    push = new PhonePush({
      store,
      dek: () => dek,
      origin: () => 'https://nexus.example.test',
      log: createLogger({ redactor: new Redactor() }),
      send: async (r) => {
        sent.push({ endpoint: r.endpoint, headers: r.headers, body: r.body ?? Buffer.alloc(0) });
        return 201;
      },
      permissionGraceMs: GRACE_MS,
    });
    const device = store.addDevice({
      name: 'Pixel',
      credentialId: 'c1',
      publicKey: new Uint8Array([1]),
      counter: 0,
      transports: [],
      rpId: 'nexus.example.test',
    });
    push.subscribe(device, { endpoint: 'http://127.0.0.1:9/push/abc', keys: phone.keys });
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  it('sends a permission notification the phone decrypts, naming the session and the tool, with the request to decide', async () => {
    await push.publicKey();
    await push.onAttention(fleet([], [session('s1', 'fix-login', '')]));
    await push.onPermissions([request('r1', 's1', 'Bash')]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['Content-Encoding']).toBe('aes128gcm');
    expect(sent[0]?.headers.Authorization).toMatch(/^vapid t=.+, k=.+$/);
    const message = JSON.parse(phone.decrypt(sent[0]?.body ?? Buffer.alloc(0))) as PushMessage;
    expect(message).toMatchObject({ kind: 'permission', sessionId: 's1', requestId: 'r1', toolName: 'Bash' });
    expect(message.title).toContain('fix-login');
    expect(message.title).toContain('Bash');
  });

  it('makes a storm of prompts one notification per session, and notifies again once the session needed you anew', async () => {
    await push.onPermissions([request('r1', 's1', 'Bash'), request('r2', 's1', 'Edit'), request('r3', 's2', 'Bash')]);
    await push.onAttention(fleet([session('s1', 'one', 'Waiting for a permission'), session('s2', 'two', 'x')]));
    expect(sent.map((s) => (JSON.parse(phone.decrypt(s.body)) as PushMessage).sessionId)).toEqual(['s1', 's2']);
    await push.onAttention(fleet([]));
    await push.onAttention(fleet([session('s1', 'one', 'Waiting for your answer')]));
    expect(sent).toHaveLength(3);
    expect(JSON.parse(phone.decrypt(sent[2]?.body ?? Buffer.alloc(0)))).toMatchObject({
      kind: 'attention',
      title: 'one needs you',
      body: 'Waiting for your answer',
    });
  });

  it('waits for the request when the roll-up says a permission is needed first, so the notification has Allow and Deny', async () => {
    await push.onAttention(fleet([session('s1', 'fix-login', 'Permission needed: Bash')]));
    expect(sent).toEqual([]);
    await push.onPermissions([request('r1', 's1', 'Bash')]);
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 2));
    expect(sent.map(decrypted)).toEqual([
      expect.objectContaining({ kind: 'permission', requestId: 'r1', sessionId: 's1' }),
    ]);
  });

  it('still announces a permission whose request never reaches Nexus, once the grace is over', async () => {
    await push.onAttention(fleet([session('s1', 'fix-login', 'Permission needed: Bash')]));
    await expect
      .poll(() => sent.map(decrypted))
      .toEqual([
        expect.objectContaining({ kind: 'attention', title: 'fix-login needs you', body: 'Permission needed: Bash' }),
      ]);
    await push.onPermissions([request('r1', 's1', 'Bash')]);
    expect(sent).toHaveLength(1);
  });

  it('sends nothing while the vault is sealed, and says so', async () => {
    dek = null;
    expect(await push.publicKey()).toEqual({ key: null, reason: expect.stringMatching(/vault is sealed/) });
    await push.onPermissions([request('r1', 's1', 'Bash')]);
    expect(sent).toEqual([]);
  });

  it('keeps the VAPID private key sealed under the vault key, never in clear', async () => {
    const { key } = await push.publicKey();
    expect(key).toMatch(/^[A-Za-z0-9_-]{80,90}$/);
    const stored = store.getSetting('phoneVapid') ?? '';
    expect(stored).toContain(key);
    await push.onPermissions([request('r1', 's1', 'Bash')]);
    // The JWT in the Authorization header is signed by the private key; the key itself is stored only sealed.
    const parsed = JSON.parse(stored) as { sealed: string; term: number };
    const privateKey = open(dek?.key ?? Buffer.alloc(32), parsed.term, Buffer.from(parsed.sealed, 'base64'), {
      recordId: 'phone-push',
      field: 'vapidPrivateKey',
    }).toString();
    expect(privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain(privateKey);
    expect(Object.keys(parsed).sort()).toEqual(['publicKey', 'sealed', 'term']);
  });
});
