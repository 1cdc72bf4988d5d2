import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { NexusError } from '../../../shared/errors';

/**
 * Sealed-box format for everything the vault stores (secret values, wrapped data keys, sealed
 * private keys). AES-256-GCM from node:crypto.
 *
 *   byte 0      format version (1)
 *   bytes 1-4   key term, uint32 big-endian (which data key / key generation sealed it)
 *   bytes 5-16  96-bit random nonce
 *   bytes 17-   ciphertext, then the 16-byte GCM tag
 *
 * The AAD binds the version, the term, the record id and the field, so a ciphertext copied to
 * another row or another column fails to open instead of decrypting into the wrong place.
 */
export const FORMAT_VERSION = 1;
export const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + 4 + NONCE_BYTES;
const AAD_LABEL = 'nexus-vault/v1';

export type VaultErrorKind = 'empty' | 'truncated' | 'unknown_version' | 'wrong_term' | 'tampered' | 'bad_key';

/** A sealed value that cannot be opened. The message names the problem, never the content. */
export class VaultError extends NexusError {
  constructor(
    readonly kind: VaultErrorKind,
    message: string,
  ) {
    super('internal', message);
    this.name = 'VaultError';
  }
}

/** Where a sealed value belongs: opening it anywhere else fails. */
export interface SealBinding {
  recordId: string;
  field: string;
}

/** Raw AES-256-GCM encryption; `seal` is what callers use. Exposed for the known-answer tests. */
export function aesGcmEncrypt(
  key: Buffer,
  nonce: Buffer,
  plaintext: Buffer,
  aad: Buffer,
): { ciphertext: Buffer; tag: Buffer } {
  assertKey(key);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ciphertext, tag: cipher.getAuthTag() };
}

/** Raw AES-256-GCM decryption; throws VaultError('tampered') when the tag does not verify. */
export function aesGcmDecrypt(key: Buffer, nonce: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer {
  assertKey(key);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new VaultError(
      'tampered',
      'A sealed vault value failed its integrity check (altered, moved or opened with the wrong key).',
    );
  }
}

/** HKDF-SHA256 (RFC 5869). */
export function hkdf(ikm: Buffer, salt: Buffer, info: string | Buffer, length = KEY_BYTES): Buffer {
  return Buffer.from(
    hkdfSync('sha256', ikm, salt, typeof info === 'string' ? Buffer.from(info, 'utf8') : info, length),
  );
}

export const randomKey = (): Buffer => randomBytes(KEY_BYTES);

export function seal(key: Buffer, term: number, plaintext: Buffer, binding: SealBinding): Buffer {
  if (!Number.isInteger(term) || term < 1 || term > 0xffffffff)
    throw new VaultError('bad_key', 'Key term out of range.');
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(FORMAT_VERSION, 0);
  header.writeUInt32BE(term, 1);
  randomBytes(NONCE_BYTES).copy(header, 5);
  const { ciphertext, tag } = aesGcmEncrypt(key, header.subarray(5), plaintext, aadFor(FORMAT_VERSION, term, binding));
  return Buffer.concat([header, ciphertext, tag]);
}

/** Reads the key term from a sealed value's header (after checking the header is sound). */
export function sealedTerm(sealed: Buffer): number {
  checkShape(sealed);
  return sealed.readUInt32BE(1);
}

/** Opens a value sealed with `key` at `term` for exactly this record and field. */
export function open(key: Buffer, term: number, sealed: Buffer, binding: SealBinding): Buffer {
  const found = sealedTerm(sealed);
  if (found !== term)
    throw new VaultError(
      'wrong_term',
      `A sealed vault value belongs to key term ${found}, not the current term ${term}.`,
    );
  const nonce = sealed.subarray(5, HEADER_BYTES);
  const ciphertext = sealed.subarray(HEADER_BYTES, sealed.length - TAG_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  return aesGcmDecrypt(key, nonce, ciphertext, tag, aadFor(FORMAT_VERSION, term, binding));
}

function checkShape(sealed: Buffer): void {
  if (!Buffer.isBuffer(sealed) || sealed.length === 0) throw new VaultError('empty', 'A sealed vault value is empty.');
  const version = sealed.readUInt8(0);
  if (version !== FORMAT_VERSION)
    throw new VaultError(
      'unknown_version',
      `A sealed vault value has format version ${version}; this build reads version ${FORMAT_VERSION}.`,
    );
  if (sealed.length < HEADER_BYTES + TAG_BYTES) throw new VaultError('truncated', 'A sealed vault value is truncated.');
}

function assertKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new VaultError('bad_key', 'Vault keys are 256 bits.');
}

/** Length-prefixed fields, so ("ab","c") and ("a","bc") never produce the same AAD. */
function aadFor(version: number, term: number, binding: SealBinding): Buffer {
  const parts = [AAD_LABEL, String(version), String(term), binding.recordId, binding.field].map((p) =>
    Buffer.from(p, 'utf8'),
  );
  return Buffer.concat(parts.flatMap((p) => [u32(p.length), p]));
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}
