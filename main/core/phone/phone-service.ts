import { randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { EventPayload, PhoneDevice, PhoneInvite, PhoneStatus } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { AuditLog } from '../audit';
import type { Logger } from '../log';
import type { ConnectorService } from '../connectors';
import type { Db } from '../store';
import {
  authenticationOptions,
  Challenges,
  registrationOptions,
  relyingPartyOf,
  verifyAuthentication,
  verifyRegistration,
} from './passkeys';
import { PhonePush } from './phone-push';
import { PhoneStore } from './phone-store';
import type { Dek } from '../vault';
import type { EventBus } from '../events';
import { toDisposable, type Disposable } from '../disposable';

const ENABLED_SETTING = 'phoneUi';
/** A registration link works this long, once. */
export const INVITE_TTL_MS = 10 * 60_000;
/** A phone's sign-in lasts this long; then it signs in again with its passkey. */
export const PHONE_SESSION_TTL_MS = 8 * 60 * 60_000;

/** Who a phone session stands for. */
export interface PhoneCaller {
  deviceId: string;
  deviceName: string;
}

/** The audit's name for a phone: `phone:<device id>`. */
export const phoneActor = (deviceId: string): string => `phone:${deviceId}`;

/**
 * The operator's phone on the public origin (docs/remote.md): off by default; on, a phone registered with
 * a one-time link from the local UI signs in with its passkey (WebAuthn, rpID = the public host)
 * and gets a short session bound to that device. Every sign-in is audited, refused ones too.
 */
export class PhoneService {
  readonly store: PhoneStore;
  /** Web Push to signed-in phones (VAPID private key sealed under the vault's data key). */
  readonly push: PhonePush;
  private readonly challenges: Challenges;

  constructor(
    db: Db,
    private readonly deps: {
      remote: Pick<ConnectorService, 'origin'>;
      audit?: Pick<AuditLog, 'record'>;
      log: Logger;
      /** The vault's data key while it is unlocked, else null (then no push). */
      dek?: () => Dek | null;
      now?: () => Date;
    },
  ) {
    this.store = new PhoneStore(db, deps.now);
    this.push = new PhonePush({
      store: this.store,
      dek: deps.dek ?? (() => null),
      origin: () => this.origin(),
      log: deps.log,
    });
    this.challenges = new Challenges(() => this.now().getTime());
    this.store.sweep();
  }

  private now = (): Date => this.deps.now?.() ?? new Date();

  /** The public origin, when both public origin mode and the phone UI are on; else null. */
  origin(): string | null {
    const origin = this.deps.remote.origin();
    return origin && this.store.getSetting(ENABLED_SETTING) === 'on' ? origin : null;
  }

  status(): PhoneStatus {
    const publicOrigin = this.deps.remote.origin();
    const enabled = this.store.getSetting(ENABLED_SETTING) === 'on';
    return { enabled, publicOrigin, phoneUrl: enabled && publicOrigin ? `${publicOrigin}/` : null };
  }

  setEnabled(enabled: boolean): PhoneStatus {
    this.store.setSetting(ENABLED_SETTING, enabled ? 'on' : null);
    if (!enabled) this.store.endAllSessions();
    this.deps.log.info('phone UI changed', { enabled });
    return this.status();
  }

  invite(name: string): PhoneInvite {
    const origin = this.origin();
    if (!origin)
      throw new NexusError('conflict', 'Turn on public origin mode and the phone UI first (Settings → Access).');
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.now().getTime() + INVITE_TTL_MS);
    this.store.addInvite(token, name, origin, expiresAt);
    // In the fragment: the token never reaches a server log, a tunnel's log or a Referer.
    return { url: `${origin}/#/register/${token}`, name, expiresAt: expiresAt.toISOString() };
  }

  devices(): PhoneDevice[] {
    return this.store.devices();
  }

  /** Sessions that start needing you and permission requests become notifications to subscribed phones. */
  follow(events: Pick<EventBus, 'subscribe'>): Disposable {
    const subscription = events.subscribe((e) => {
      let sent: Promise<void> | null = null;
      if (e.name === 'attention.changed') sent = this.push.onAttention(e.payload as EventPayload<'attention.changed'>);
      if (e.name === 'permissions.changed')
        sent = this.push.onPermissions((e.payload as EventPayload<'permissions.changed'>).requests);
      sent?.catch((error: unknown) => this.deps.log.warn('phone push failed', { error }));
    });
    return toDisposable(async () => {
      await subscription.dispose();
      this.push.dispose();
    });
  }

  revoke(id: string): PhoneDevice {
    if (!this.store.deviceRow(id)) throw new NexusError('not_found', `No phone "${id}".`);
    this.store.revokeDevice(id);
    this.push.unsubscribe(id);
    this.deps.log.info('phone revoked', { device: id });
    return this.store.devices().find((d) => d.id === id) as PhoneDevice;
  }

  // The ceremonies, called by the public origin's phone routes only.

  async registrationOptions(token: string) {
    const origin = this.origin();
    const invite = origin ? this.store.invite(token, origin) : null;
    if (!origin || !invite)
      throw new NexusError(
        'unauthorized',
        'This registration link is not valid (used, expired or for another origin).',
      );
    const rp = relyingPartyOf(origin);
    const options = await registrationOptions(rp, invite.name, this.store.activeDevices(rp.rpId));
    this.challenges.add(options.challenge, `register:${token}`);
    return options;
  }

  async register(token: string, response: RegistrationResponseJSON): Promise<PhoneDevice> {
    const origin = this.origin();
    const invite = origin ? this.store.invite(token, origin) : null;
    if (!origin || !invite) {
      this.audit('phone:register', 'anonymous', 'unauthorized');
      throw new NexusError(
        'unauthorized',
        'This registration link is not valid (used, expired or for another origin).',
      );
    }
    const rp = relyingPartyOf(origin);
    const passkey = await verifyRegistration(rp, response, (c) => this.challenges.take(c, `register:${token}`));
    if (!passkey || !this.store.consumeInvite(token)) {
      this.audit('phone:register', 'anonymous', 'unauthorized');
      throw new NexusError('unauthorized', 'The passkey could not be registered; open a new link from Nexus.');
    }
    const id = this.store.addDevice({ name: invite.name, rpId: rp.rpId, ...passkey });
    this.audit('phone:register', phoneActor(id), 'ok');
    this.deps.log.info('phone registered', { device: id });
    return this.store.devices().find((d) => d.id === id) as PhoneDevice;
  }

  async signInOptions() {
    const origin = this.origin();
    if (!origin) throw new NexusError('not_found', 'No such route.');
    const rp = relyingPartyOf(origin);
    const options = await authenticationOptions(rp, this.store.activeDevices(rp.rpId));
    this.challenges.add(options.challenge, 'signin');
    return options;
  }

  /** A verified passkey of a registered, unrevoked device: a new session (its secret goes in the cookie). */
  async signIn(
    response: AuthenticationResponseJSON,
  ): Promise<{ secret: string; caller: PhoneCaller; expiresAt: Date }> {
    const origin = this.origin();
    if (!origin) throw new NexusError('not_found', 'No such route.');
    const rp = relyingPartyOf(origin);
    const device = typeof response?.id === 'string' ? this.store.deviceByCredential(response.id) : null;
    if (!device || device.revoked_at !== null || device.rp_id !== rp.rpId) {
      this.audit('phone:signin', device ? phoneActor(device.id) : 'anonymous', 'unauthorized');
      throw new NexusError('unauthorized', 'This passkey is not registered with Nexus (or was revoked).');
    }
    const counter = await verifyAuthentication(rp, response, device, (c) => this.challenges.take(c, 'signin'));
    if (counter === null) {
      this.audit('phone:signin', phoneActor(device.id), 'unauthorized');
      throw new NexusError('unauthorized', 'The passkey answer was not valid; sign in again.');
    }
    this.store.signedIn(device.id, counter);
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.now().getTime() + PHONE_SESSION_TTL_MS);
    this.store.addSession(secret, device.id, origin, expiresAt);
    this.audit('phone:signin', phoneActor(device.id), 'ok');
    return { secret, caller: { deviceId: device.id, deviceName: device.name }, expiresAt };
  }

  /** Who a session cookie stands for: a live session for the origin in force, of a device not revoked. */
  authenticate(secret: string | null): PhoneCaller | null {
    const origin = this.origin();
    if (!origin || !secret) return null;
    const session = this.store.session(secret);
    if (!session || session.origin !== origin) return null;
    const device = this.store.deviceRow(session.device_id);
    if (!device || device.revoked_at !== null) return null;
    return { deviceId: device.id, deviceName: device.name };
  }

  signOut(secret: string): void {
    this.store.endSession(secret);
  }

  audit(operation: string, actor: string, outcome: string, detail?: string): void {
    this.deps.audit?.record({
      actor,
      transport: 'remote',
      operation,
      outcome,
      durationMs: 0,
      ...(detail ? { detail } : {}),
    });
  }
}
