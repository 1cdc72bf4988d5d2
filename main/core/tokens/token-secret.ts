import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { tokenPrefixes, type TokenClass } from '../../../shared/contract';

/** 32 random bytes (256 bits) after the class prefix, base64url: `nxs_w_` + 43 characters. */
const SECRET_BYTES = 32;
const SHAPE = /^nxs_([rwv])_([A-Za-z0-9_-]{43})$/;
const classOfLetter: Record<string, TokenClass> = { r: 'read', w: 'write', v: 'vault' };

export function newTokenSecret(cls: TokenClass): string {
  return `${tokenPrefixes[cls]}${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

/** The class a well-formed secret claims by its prefix, or null when it is not a Nexus token at all. */
export function claimedClass(secret: string): TokenClass | null {
  const m = SHAPE.exec(secret);
  return m ? (classOfLetter[m[1] ?? ''] ?? null) : null;
}

/** SHA-256 is enough for 256-bit random secrets: there is nothing to brute-force (one-shot: no Hash object per call). */
export const hashSecret = (secret: string): Buffer => hash('sha256', secret, 'buffer');

/** What the operator sees to tell tokens apart: the prefix and four characters. */
export const hintOf = (secret: string): string => `${secret.slice(0, 10)}…`;

/** Constant-time comparison of two 32-byte digests. */
export const sameDigest = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);
