import { createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { fromSeed } from '@nats-io/nkeys';

/**
 * The few nkey encodings core needs on the hot path of a run's start, done with node:crypto
 * instead of @nats-io/nkeys' pure-JS ed25519 (which takes milliseconds per signature and per key):
 * an nkey is base32 (RFC 4648, no padding) of prefix byte(s) + 32 raw bytes + CRC-16/XMODEM (LE).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** Prefix byte of a user's public key ('U'). */
export const USER_PREFIX = 20 << 3;

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of text) {
    const v = ALPHABET.indexOf(c);
    if (v < 0) throw new Error('not base32');
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The public nkey (`U…`, `A…`) of 32 raw public-key bytes. */
export function publicNkey(prefix: number, raw: Uint8Array): string {
  const body = Buffer.concat([Buffer.from([prefix]), raw]);
  const crc = Buffer.alloc(2);
  crc.writeUInt16LE(crc16(body));
  return base32(Buffer.concat([body, crc]));
}

/**
 * A fresh user public key for a bearer JWT: the server checks no signature by the user, so the
 * key only has to be unique and well-formed (32 random bytes), and no key pair is made.
 */
export function bearerUserKey(): string {
  return publicNkey(USER_PREFIX, randomBytes(32));
}

/** Something that signs as an nkey: a KeyPair of @nats-io/nkeys, or `NkeySigner`. */
export interface Signer {
  getPublicKey(): string;
  sign(data: Uint8Array): Uint8Array;
}

/** Signs with an nkey seed through node:crypto's ed25519 (microseconds, not milliseconds). */
export class NkeySigner implements Signer {
  private readonly key: KeyObject;
  private readonly publicKey: string;

  constructor(seed: string) {
    const raw = unbase32(seed).subarray(2, 34);
    // PKCS#8 wrapping of a raw ed25519 private key (RFC 8410).
    const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), raw]);
    this.key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    this.publicKey = fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  }

  getPublicKey(): string {
    return this.publicKey;
  }

  sign(data: Uint8Array): Uint8Array {
    return sign(null, data, this.key);
  }
}
