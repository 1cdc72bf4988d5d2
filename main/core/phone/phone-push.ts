import type { FleetAttention, SessionAttention } from '../../../shared/attention';
import { agentStateWords } from '../../../shared/attention-words';
import type { PermissionRequest } from '../../../shared/contract';
import type { Logger } from '../log';
import { open, seal, type Dek } from '../vault';
import type { PhoneStore } from './phone-store';

const VAPID_SETTING = 'phoneVapid';
/**
 * How long a session the roll-up says waits for a permission is held back for the request itself:
 * the agent's state often says so before its request reaches Nexus, and only the request's
 * notification can carry Allow / Deny. A permission that never reaches Nexus is still announced.
 */
export const PERMISSION_GRACE_MS = 5_000;
const BINDING = { recordId: 'phone-push', field: 'vapidPrivateKey' };

/** What a notification carries (the service worker shows it; a permission one has Allow / Deny). */
export interface PushMessage {
  kind: 'permission' | 'attention';
  title: string;
  body: string;
  sessionId: string;
  requestId?: string;
  toolName?: string;
}

export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** Sends one encrypted push request (the push service's endpoint); the HTTP status. */
export type PushSender = (request: {
  endpoint: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
}) => Promise<number>;

const fetchSender: PushSender = async (r) =>
  (
    await fetch(r.endpoint, {
      method: r.method,
      headers: r.headers,
      body: r.body ? new Uint8Array(r.body) : undefined,
      signal: AbortSignal.timeout(10_000),
    })
  ).status;

/**
 * Web Push for signed-in phones (docs/remote.md): VAPID keys Nexus makes, the private one sealed under the
 * vault's data key (so a sealed vault means no push, and Settings says so); one notification per
 * session while it needs you (a storm of prompts is one notification), naming the session and the
 * tool; a permission one carries the request id for the service worker's Allow / Deny.
 */
export class PhonePush {
  /** Sessions already notified while they need you; cleared when they stop needing you. */
  private readonly notified = new Set<string>();
  private readonly names = new Map<string, string>();
  private needing = new Set<string>();

  constructor(
    private readonly deps: {
      store: PhoneStore;
      dek: () => Dek | null;
      /** The public origin while the phone UI is on (the VAPID subject), else null: then nothing is sent. */
      origin: () => string | null;
      log: Logger;
      send?: PushSender;
      /** PERMISSION_GRACE_MS unless told (tests). */
      permissionGraceMs?: number;
    },
  ) {}

  /** Sessions held back (their roll-up says "Permission needed"), by session id. */
  private readonly held = new Map<string, ReturnType<typeof setTimeout>>();

  /** The VAPID public key (made on first use), or null with the reason. */
  async publicKey(): Promise<{ key: string | null; reason: string | null }> {
    const keys = await this.keys();
    return keys
      ? { key: keys.publicKey, reason: null }
      : { key: null, reason: 'The vault is sealed: no push until it is unlocked.' };
  }

  private async keys(): Promise<{ publicKey: string; privateKey: string } | null> {
    const dek = this.deps.dek();
    if (!dek) return null;
    const stored = this.deps.store.getSetting(VAPID_SETTING);
    if (stored) {
      const { publicKey, term, sealed } = JSON.parse(stored) as { publicKey: string; term: number; sealed: string };
      if (term === dek.term) {
        try {
          return { publicKey, privateKey: open(dek.key, term, Buffer.from(sealed, 'base64'), BINDING).toString() };
        } catch {
          this.deps.log.warn('phone push keys could not be opened; making new ones');
        }
      }
    }
    // First use, or the data key rotated: new keys, and the old subscriptions (bound to the old key) go.
    const { generateVAPIDKeys } = (await import('web-push')).default;
    const fresh = generateVAPIDKeys();
    const sealed = seal(dek.key, dek.term, Buffer.from(fresh.privateKey), BINDING).toString('base64');
    this.deps.store.setSetting(VAPID_SETTING, JSON.stringify({ publicKey: fresh.publicKey, term: dek.term, sealed }));
    if (stored) this.deps.store.forgetAllPush();
    return fresh;
  }

  subscribe(deviceId: string, sub: PushSubscriptionInput): void {
    this.deps.store.savePushSubscription(deviceId, sub.endpoint, sub.keys.p256dh, sub.keys.auth);
  }

  unsubscribe(deviceId: string): void {
    this.deps.store.forgetPushOf(deviceId);
  }

  /** The attention service's roll-up: a session that starts needing you is one notification. */
  async onAttention(fleet: FleetAttention): Promise<void> {
    for (const s of fleet.sessions) this.names.set(s.sessionId, s.sessionName);
    const needing = new Set(fleet.needsYou.map((s) => s.sessionId));
    // Notified again only after it stopped needing you (a permission may be announced before the roll-up shows it).
    for (const id of [...this.notified]) if (this.needing.has(id) && !needing.has(id)) this.notified.delete(id);
    this.needing = needing;
    for (const id of [...this.held.keys()]) if (!needing.has(id)) this.release(id);
    for (const s of fleet.needsYou) {
      if (this.notified.has(s.sessionId) || this.held.has(s.sessionId)) continue;
      if (s.reason.startsWith(agentStateWords.waiting_permission)) this.holdForRequest(s);
      else await this.announce(s);
    }
  }

  private holdForRequest(s: SessionAttention): void {
    const timer = setTimeout(() => {
      this.held.delete(s.sessionId);
      if (this.needing.has(s.sessionId) && !this.notified.has(s.sessionId))
        this.announce(s).catch((error: unknown) => this.deps.log.warn('phone push failed', { error }));
    }, this.deps.permissionGraceMs ?? PERMISSION_GRACE_MS);
    timer.unref();
    this.held.set(s.sessionId, timer);
  }

  private async announce(s: SessionAttention): Promise<void> {
    this.notified.add(s.sessionId);
    await this.send({ kind: 'attention', title: `${s.sessionName} needs you`, body: s.reason, sessionId: s.sessionId });
  }

  private release(sessionId: string): void {
    clearTimeout(this.held.get(sessionId));
    this.held.delete(sessionId);
  }

  /** Stops the held-back timers (core is stopping). */
  dispose(): void {
    for (const id of [...this.held.keys()]) this.release(id);
  }

  /** Waiting permission requests: the first of a session (not yet notified) is one notification with Allow / Deny. */
  async onPermissions(requests: readonly PermissionRequest[]): Promise<void> {
    for (const r of requests) {
      if (this.notified.has(r.sessionId)) continue;
      this.notified.add(r.sessionId);
      this.release(r.sessionId);
      const name = this.names.get(r.sessionId) ?? r.sessionId;
      await this.send({
        kind: 'permission',
        title: `${name}: allow ${r.toolName}?`,
        body: `${name} asks to use ${r.toolName}.`,
        sessionId: r.sessionId,
        requestId: r.id,
        toolName: r.toolName,
      });
    }
  }

  private async send(message: PushMessage): Promise<void> {
    const origin = this.deps.origin();
    if (!origin) return;
    const keys = await this.keys();
    if (!keys) return this.deps.log.info('phone push skipped: the vault is sealed');
    const { generateRequestDetails } = (await import('web-push')).default;
    const subs = this.deps.store.pushSubscriptions();
    await Promise.all(
      subs.map(async (sub) => {
        const request = generateRequestDetails(
          { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
          JSON.stringify(message),
          { vapidDetails: { subject: origin, ...keys }, TTL: 600, contentEncoding: 'aes128gcm', urgency: 'high' },
        );
        const status = await (this.deps.send ?? fetchSender)(request).catch(() => 0);
        // Gone or not found: the phone unsubscribed (RFC 8030).
        if (status === 404 || status === 410) this.deps.store.forgetPushEndpoint(sub.endpoint);
        else if (status < 200 || status >= 300) this.deps.log.warn('phone push refused', { status });
      }),
    );
  }
}
