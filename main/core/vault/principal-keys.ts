import {
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  randomBytes,
  scrypt,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';
import { hkdf, open, seal, VaultError } from './crypto';

/**
 * Each principal has an X25519 key pair. Its private key is sealed under the principal's own KEK
 * (keychain key, passphrase-derived key or credential-derived key); the data key (DEK) is wrapped
 * to its public key. Rotation can therefore rewrap the new DEK for every remaining principal from
 * public keys alone, without knowing any passphrase or credential, and a removed principal that
 * once held the old DEK learns nothing that opens the new one.
 */
export interface PrincipalKeyPair {
  publicKey: Buffer;
  privateKey: Buffer;
}

/** How a principal's KEK is obtained; stored beside its row (never the KEK itself). */
export const KekParams = z.discriminatedUnion('kdf', [
  z.object({ kdf: z.literal('keychain') }),
  z.object({
    kdf: z.literal('scrypt'),
    n: z.number().int(),
    r: z.number().int(),
    p: z.number().int(),
    salt: z.string(),
  }),
  z.object({ kdf: z.literal('hkdf'), salt: z.string() }),
  z.object({ kdf: z.literal('key_file'), salt: z.string() }),
]);
export type KekParams = z.infer<typeof KekParams>;

/** scrypt cost used for new passphrases: about 128 MiB and a few hundred ms. */
export const SCRYPT_DEFAULTS = { n: 2 ** 17, r: 8, p: 1 } as const;
/** Enforced when reading stored parameters: a tampered row cannot weaken (or explode) the KDF. */
const SCRYPT_LIMITS = { minN: 2 ** 15, maxN: 2 ** 20, minR: 8, maxR: 32, minP: 1, maxP: 16, minSalt: 16 } as const;

const PRIVATE_KEY_TERM = 1;
const WRAP_INFO = 'nexus-vault/dek-wrap/v1';

export function newKeyPair(): PrincipalKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKey: publicKey.export({ format: 'der', type: 'spki' }),
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }),
  };
}

export const sealPrivateKey = (kek: Buffer, principalId: string, privateKey: Buffer): Buffer =>
  seal(kek, PRIVATE_KEY_TERM, privateKey, { recordId: principalId, field: 'private_key' });

/** Throws VaultError('tampered') when the KEK is wrong (wrong passphrase, other keychain key). */
export const openPrivateKey = (kek: Buffer, principalId: string, sealed: Buffer): Buffer =>
  open(kek, PRIVATE_KEY_TERM, sealed, { recordId: principalId, field: 'private_key' });

export interface WrappedDek {
  wrapped: Buffer;
  ephemeralPublicKey: Buffer;
}

/** Wraps the DEK to a principal's public key (ephemeral X25519 + HKDF + sealed box). */
export function wrapDek(dek: Buffer, term: number, principalId: string, principalPublicKey: Buffer): WrappedDek {
  const eph = generateKeyPairSync('x25519');
  const ephemeralPublicKey = eph.publicKey.export({ format: 'der', type: 'spki' });
  const wrapKey = wrapKeyFor(
    eph.privateKey,
    publicKeyObject(principalPublicKey),
    ephemeralPublicKey,
    principalPublicKey,
  );
  try {
    return { wrapped: seal(wrapKey, term, dek, { recordId: principalId, field: 'dek' }), ephemeralPublicKey };
  } finally {
    wrapKey.fill(0);
  }
}

export function unwrapDek(
  privateKey: Buffer,
  publicKey: Buffer,
  term: number,
  principalId: string,
  w: WrappedDek,
): Buffer {
  const wrapKey = wrapKeyFor(
    privateKeyObject(privateKey),
    publicKeyObject(w.ephemeralPublicKey),
    w.ephemeralPublicKey,
    publicKey,
  );
  try {
    return open(wrapKey, term, w.wrapped, { recordId: principalId, field: 'dek' });
  } finally {
    wrapKey.fill(0);
  }
}

function wrapKeyFor(priv: KeyObject, pub: KeyObject, ephemeralPublicKey: Buffer, principalPublicKey: Buffer): Buffer {
  const shared = diffieHellman({ privateKey: priv, publicKey: pub });
  try {
    return hkdf(shared, Buffer.concat([ephemeralPublicKey, principalPublicKey]), WRAP_INFO);
  } finally {
    shared.fill(0);
  }
}

function publicKeyObject(der: Buffer): KeyObject {
  try {
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw new VaultError('tampered', 'A stored vault public key is not valid.');
  }
}

function privateKeyObject(der: Buffer): KeyObject {
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    throw new VaultError('tampered', 'A stored vault private key is not valid.');
  }
}

export function newScryptParams(): KekParams & { kdf: 'scrypt' } {
  return { kdf: 'scrypt', ...SCRYPT_DEFAULTS, salt: randomBytes(16).toString('base64') };
}

/** Derives the recovery KEK; refuses stored parameters below the minimums (or absurdly above). */
export async function passphraseKek(passphrase: string, params: KekParams & { kdf: 'scrypt' }): Promise<Buffer> {
  const salt = Buffer.from(params.salt, 'base64');
  const L = SCRYPT_LIMITS;
  const powerOfTwo = params.n > 1 && (params.n & (params.n - 1)) === 0;
  if (
    !powerOfTwo ||
    params.n < L.minN ||
    params.n > L.maxN ||
    params.r < L.minR ||
    params.r > L.maxR ||
    params.p < L.minP ||
    params.p > L.maxP ||
    salt.length < L.minSalt
  ) {
    throw new VaultError(
      'bad_key',
      'The stored recovery key parameters are below the minimum strength; refusing to use them.',
    );
  }
  return new Promise((resolve, reject) => {
    scrypt(
      passphrase.normalize('NFC'),
      salt,
      32,
      { N: params.n, r: params.r, p: params.p, maxmem: 256 * params.n * params.r + 1024 * 1024 },
      (err, key) => (err ? reject(new VaultError('bad_key', 'The recovery key could not be derived.')) : resolve(key)),
    );
  });
}

export function newHkdfParams(): KekParams & { kdf: 'hkdf' } {
  return { kdf: 'hkdf', salt: randomBytes(32).toString('base64') };
}

/** Machine KEK: HKDF over a high-entropy credential (an MCP token), bound to the principal id. */
export function credentialKek(credential: string, principalId: string, params: KekParams & { kdf: 'hkdf' }): Buffer {
  const salt = Buffer.from(params.salt, 'base64');
  if (salt.length < 16)
    throw new VaultError('bad_key', 'The stored machine key parameters are below the minimum strength.');
  return hkdf(Buffer.from(credential, 'utf8'), salt, `nexus-vault/machine-kek/v1:${principalId}`);
}

export function newKeyFileParams(): KekParams & { kdf: 'key_file' } {
  return { kdf: 'key_file', salt: randomBytes(32).toString('base64') };
}

/** Operator KEK of a key-file vault: HKDF over the file's bytes (at least 32 random bytes, checked on read). */
export function keyFileKek(fileBytes: Buffer, params: KekParams & { kdf: 'key_file' }): Buffer {
  const salt = Buffer.from(params.salt, 'base64');
  if (salt.length < 16)
    throw new VaultError('bad_key', 'The stored key-file parameters are below the minimum strength.');
  return hkdf(fileBytes, salt, 'nexus-vault/key-file-kek/v1');
}
