import { createHash } from 'node:crypto';
import type { Signer } from './nkey-codec';

/** A subject allow-list as a NATS JWT carries it (`pub` / `sub`). */
export interface JwtPermission {
  allow?: string[];
  deny?: string[];
}

/** Limits of -1 everywhere: nats-server reads a missing limit as 0 (no connections, no subscriptions). */
const NO_LIMIT = -1;
const accountLimits = {
  subs: NO_LIMIT,
  data: NO_LIMIT,
  payload: NO_LIMIT,
  imports: NO_LIMIT,
  exports: NO_LIMIT,
  wildcards: true,
  conn: NO_LIMIT,
  leaf: NO_LIMIT,
};
const userLimits = { subs: NO_LIMIT, data: NO_LIMIT, payload: NO_LIMIT };

const header = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' })).toString('base64url');

/**
 * Encodes and signs one NATS JWT (nats-io/jwt v2 claims: `jti`, `iat`, `iss`, `sub`, `name`, `exp`,
 * `nats: { type, version: 2, … }`), signed with ed25519 by `signer` over `<header>.<payload>`
 * (base64url without padding). `jti` is the claims' SHA-512/256 digest, as the Go library makes it.
 * Small enough to own instead of depending on @nats-io/jwt (not a supported API); pinned by
 * jwt.test.ts against nats-server itself.
 */
export function encodeJwt(
  signer: Signer,
  claims: { sub: string; name: string; exp?: number; nats: Record<string, unknown> },
  now = Date.now(),
): string {
  const body: Record<string, unknown> = {
    jti: '',
    iat: Math.floor(now / 1000),
    iss: signer.getPublicKey(),
    name: claims.name,
    sub: claims.sub,
    ...(claims.exp !== undefined ? { exp: claims.exp } : {}),
    nats: { ...claims.nats, version: 2 },
  };
  body.jti = createHash('sha512-256').update(JSON.stringify(body)).digest('hex').toUpperCase();
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  const sig = Buffer.from(signer.sign(Buffer.from(`${header}.${payload}`))).toString('base64url');
  return `${header}.${payload}.${sig}`;
}

/** The operator's self-signed JWT; `signingKeys` may sign account JWTs in its name. */
export function operatorJwt(operator: Signer, name: string): string {
  return encodeJwt(operator, { sub: operator.getPublicKey(), name, nats: { type: 'operator' } });
}

/**
 * An account JWT signed by the operator. `signingKey` signs its users (the account's identity key
 * signs nothing); `revocations` maps a user public key to the unix second before which (inclusive)
 * its JWTs are refused.
 */
export function accountJwt(
  operator: Signer,
  account: string,
  input: { name: string; signingKey: string; revocations: Record<string, number> },
): string {
  return encodeJwt(operator, {
    sub: account,
    name: input.name,
    nats: {
      type: 'account',
      limits: accountLimits,
      signing_keys: [input.signingKey],
      default_permissions: { pub: {}, sub: {} },
      ...(Object.keys(input.revocations).length ? { revocations: input.revocations } : {}),
    },
  });
}

/** A user JWT signed by the account's signing key, with its allow-lists and an expiry (unix seconds). */
export function userJwt(
  signingKey: Signer,
  account: string,
  input: { user: string; name: string; pub: JwtPermission; sub: JwtPermission; exp?: number; bearer?: boolean },
): string {
  return encodeJwt(signingKey, {
    sub: input.user,
    name: input.name,
    ...(input.exp !== undefined ? { exp: input.exp } : {}),
    nats: {
      type: 'user',
      issuer_account: account,
      pub: input.pub,
      sub: input.sub,
      ...userLimits,
      ...(input.bearer ? { bearer_token: true } : {}),
    },
  });
}

/** The creds file nats clients read (`credsAuthenticator`, `nats --creds`): the user JWT and its seed. */
export function credsFile(jwt: string, seed: Uint8Array): string {
  return (
    `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n` +
    `-----BEGIN USER NKEY SEED-----\n${Buffer.from(seed).toString()}\n------END USER NKEY SEED------\n`
  );
}
