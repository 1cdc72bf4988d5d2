import { describe, expect, it } from 'vitest';
import { aesGcmDecrypt, aesGcmEncrypt, hkdf, open, randomKey, seal, VaultError } from './crypto';

const hex = (s: string) => Buffer.from(s, 'hex');
const range = (from: number, to: number) => Buffer.from(Array.from({ length: to - from + 1 }, (_, i) => from + i));

describe('vault crypto: known answers', () => {
  // NIST / McGrew-Viega GCM spec, test case 16 (AES-256, 96-bit IV, with AAD).
  const kat = {
    key: hex('feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308'),
    iv: hex('cafebabefacedbaddecaf888'),
    plaintext: hex(
      'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39',
    ),
    aad: hex('feedfacedeadbeeffeedfacedeadbeefabaddad2'),
    ciphertext: hex(
      '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662',
    ),
    tag: hex('76fc6ece0f4e1768cddf8853bb2d551b'),
  };

  it('encrypts the NIST AES-256-GCM vector to the published ciphertext and tag', () => {
    const out = aesGcmEncrypt(kat.key, kat.iv, kat.plaintext, kat.aad);
    expect(out.ciphertext.toString('hex')).toBe(kat.ciphertext.toString('hex'));
    expect(out.tag.toString('hex')).toBe(kat.tag.toString('hex'));
  });

  it('decrypts the NIST vector and rejects it with a wrong tag', () => {
    expect(aesGcmDecrypt(kat.key, kat.iv, kat.ciphertext, kat.tag, kat.aad).equals(kat.plaintext)).toBe(true);
    const badTag = Buffer.from(kat.tag);
    badTag[0]! ^= 1;
    expect(() => aesGcmDecrypt(kat.key, kat.iv, kat.ciphertext, badTag, kat.aad)).toThrow(VaultError);
  });

  it('encrypts the all-zero AES-256-GCM vectors (test cases 13 and 14)', () => {
    const zeroKey = Buffer.alloc(32);
    const iv = Buffer.alloc(12);
    expect(aesGcmEncrypt(zeroKey, iv, Buffer.alloc(0), Buffer.alloc(0)).tag.toString('hex')).toBe(
      '530f8afbc74536b9a963b4f1c4cb738b',
    );
    const block = aesGcmEncrypt(zeroKey, iv, Buffer.alloc(16), Buffer.alloc(0));
    expect(block.ciphertext.toString('hex')).toBe('cea7403d4d606b6e074ec5d3baf39d18');
    expect(block.tag.toString('hex')).toBe('d0d1c8a799996bf0265b98b5d48ab919');
  });

  it.each([
    {
      name: 'RFC 5869 test case 1',
      ikm: Buffer.alloc(22, 0x0b),
      salt: hex('000102030405060708090a0b0c'),
      info: hex('f0f1f2f3f4f5f6f7f8f9'),
      length: 42,
      okm: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
    },
    {
      name: 'RFC 5869 test case 2',
      ikm: range(0x00, 0x4f),
      salt: range(0x60, 0xaf),
      info: range(0xb0, 0xff),
      length: 82,
      okm:
        'b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da32' +
        '75600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87',
    },
    {
      name: 'RFC 5869 test case 3',
      ikm: Buffer.alloc(22, 0x0b),
      salt: Buffer.alloc(0),
      info: Buffer.alloc(0),
      length: 42,
      okm: '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
    },
  ])('derives the published output for $name', ({ ikm, salt, info, length, okm }) => {
    expect(hkdf(ikm, salt, info, length).toString('hex')).toBe(okm);
  });
});

describe('vault crypto: sealed values', () => {
  const key = randomKey();
  const where = { recordId: 'secret-1', field: 'value' };
  const plaintext = Buffer.from('ghp_exampleTokenValue0123456789', 'utf8');

  const failure = (fn: () => unknown): VaultError => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(VaultError);
      return e as VaultError;
    }
    throw new Error('expected a VaultError');
  };

  it('round-trips a value and uses a fresh nonce every time', () => {
    const a = seal(key, 3, plaintext, where);
    const b = seal(key, 3, plaintext, where);
    expect(a.equals(b)).toBe(false);
    expect(open(key, 3, a, where).equals(plaintext)).toBe(true);
    expect(a.includes(plaintext)).toBe(false);
  });

  it('fails with a typed error when any single byte of the sealed value is flipped', () => {
    const sealed = seal(key, 1, plaintext, where);
    for (let i = 0; i < sealed.length; i++) {
      const copy = Buffer.from(sealed);
      copy[i]! ^= 0x01;
      const e = failure(() => open(key, 1, copy, where));
      expect(['tampered', 'unknown_version', 'wrong_term']).toContain(e.kind);
    }
  });

  it('refuses a ciphertext moved to another record or another field', () => {
    const sealed = seal(key, 1, plaintext, where);
    expect(failure(() => open(key, 1, sealed, { recordId: 'secret-2', field: 'value' })).kind).toBe('tampered');
    expect(failure(() => open(key, 1, sealed, { recordId: 'secret-1', field: 'name' })).kind).toBe('tampered');
    // Length-prefixed AAD: shifting characters between record id and field does not collide.
    expect(
      failure(() =>
        open(key, 1, seal(key, 1, plaintext, { recordId: 'ab', field: 'c' }), { recordId: 'a', field: 'bc' }),
      ).kind,
    ).toBe('tampered');
  });

  it('refuses a value sealed under another key term, and the wrong key', () => {
    const sealed = seal(key, 1, plaintext, where);
    expect(failure(() => open(key, 2, sealed, where)).kind).toBe('wrong_term');
    expect(failure(() => open(randomKey(), 1, sealed, where)).kind).toBe('tampered');
  });

  it('gives typed errors for empty, truncated and unknown-version input, never garbage', () => {
    const sealed = seal(key, 1, plaintext, where);
    expect(failure(() => open(key, 1, Buffer.alloc(0), where)).kind).toBe('empty');
    for (const n of [1, 5, 17, 32])
      expect(failure(() => open(key, 1, sealed.subarray(0, n), where)).kind).toBe('truncated');
    const v2 = Buffer.from(sealed);
    v2[0] = 2;
    expect(failure(() => open(key, 1, v2, where)).kind).toBe('unknown_version');
    expect(failure(() => open(key, 1, sealed.subarray(0, sealed.length - 1), where)).kind).toBe('tampered');
  });

  it('refuses keys that are not 256 bits', () => {
    expect(failure(() => seal(Buffer.alloc(16), 1, plaintext, where)).kind).toBe('bad_key');
  });
});
