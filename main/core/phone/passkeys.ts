import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { DeviceRow } from './phone-store';

/** The WebAuthn library, loaded only once a phone starts a ceremony (with the phone UI off it never runs). */
const webauthn = () => import('@simplewebauthn/server');

/** How long a ceremony's challenge may be answered. */
export const CHALLENGE_TTL_MS = 2 * 60_000;

/** The relying party: the public host (no port) and the public origin, the only ones a passkey is accepted for. */
export interface RelyingParty {
  rpId: string;
  origin: string;
}

export const relyingPartyOf = (origin: string): RelyingParty => ({ rpId: new URL(origin).hostname, origin });

/**
 * Challenges handed out and not yet answered, each answerable once and only before it expires: a
 * replayed sign-in response names a challenge already spent and is refused.
 */
export class Challenges {
  private readonly open = new Map<string, { purpose: string; expires: number }>();
  constructor(private readonly now: () => number = () => Date.now()) {}

  add(challenge: string, purpose: string): void {
    for (const [c, v] of this.open) if (v.expires <= this.now()) this.open.delete(c);
    this.open.set(challenge, { purpose, expires: this.now() + CHALLENGE_TTL_MS });
  }

  /** Spends a challenge: true once, for an open challenge made for this purpose. */
  take(challenge: string, purpose: string): boolean {
    const entry = this.open.get(challenge);
    if (!entry) return false;
    this.open.delete(challenge);
    return entry.purpose === purpose && entry.expires > this.now();
  }
}

export async function registrationOptions(
  rp: RelyingParty,
  name: string,
  existing: DeviceRow[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return (await webauthn()).generateRegistrationOptions({
    rpName: 'Nexus',
    rpID: rp.rpId,
    userName: 'operator',
    userDisplayName: `Nexus operator (${name})`,
    attestationType: 'none',
    excludeCredentials: existing.map((d) => ({ id: d.credential_id, transports: transportsOf(d) })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
}

export interface NewPasskey {
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
}

/** Checks a registration answer against the challenge (spent by `take`), the origin and the rpID. */
export async function verifyRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  take: (challenge: string) => boolean,
): Promise<NewPasskey | null> {
  const verified = await (
    await webauthn()
  )
    .verifyRegistrationResponse({
      response,
      expectedChallenge: take,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
    })
    .catch(() => null);
  if (!verified?.verified) return null;
  const { credential } = verified.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: credential.transports ?? [],
  };
}

export async function authenticationOptions(
  rp: RelyingParty,
  devices: DeviceRow[],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return (await webauthn()).generateAuthenticationOptions({
    rpID: rp.rpId,
    userVerification: 'required',
    allowCredentials: devices.map((d) => ({ id: d.credential_id, transports: transportsOf(d) })),
  });
}

/** Checks a sign-in answer with the device's stored public key; the new signature counter, or null. */
export async function verifyAuthentication(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  device: DeviceRow,
  take: (challenge: string) => boolean,
): Promise<number | null> {
  const verified = await (
    await webauthn()
  )
    .verifyAuthenticationResponse({
      response,
      expectedChallenge: take,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
      credential: {
        id: device.credential_id,
        publicKey: new Uint8Array(device.public_key),
        counter: device.counter,
        transports: transportsOf(device),
      },
    })
    .catch(() => null);
  return verified?.verified ? verified.authenticationInfo.newCounter : null;
}

const transportsOf = (d: DeviceRow): AuthenticatorTransport[] => {
  try {
    return JSON.parse(d.transports) as AuthenticatorTransport[];
  } catch {
    return [];
  }
};
