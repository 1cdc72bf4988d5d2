import type { PrincipalKind } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { Db } from '../store';
import { coreSecretBinding, CoreSecretStore, type CoreSecretRow } from './core-secret-store';
import { open, randomKey, seal, VaultError } from './crypto';
import { newKeyPair, openPrivateKey, sealPrivateKey, unwrapDek, wrapDek, type KekParams } from './principal-keys';
import type { PrincipalRow, VaultStore } from './vault-store';

// The data key (DEK) and its copies: each principal holds the DEK wrapped to its own key pair, and a
// rotation reseals every secret under a new DEK and rewraps every copy, in one transaction.

/** The data key in memory: never serialized, never logged, zeroed when dropped. */
export interface Dek {
  term: number;
  key: Buffer;
}

/** A principal's row: a fresh key pair sealed under its KEK, holding a copy of `dek` wrapped to that pair. */
export function principalRow(
  id: string,
  kind: PrincipalKind,
  kek: Buffer,
  kekParams: KekParams,
  dek: Dek,
  now: string,
): PrincipalRow {
  const pair = newKeyPair();
  const sealedPrivateKey = sealPrivateKey(kek, id, pair.privateKey);
  pair.privateKey.fill(0);
  const w = wrapDek(dek.key, dek.term, id, pair.publicKey);
  return {
    id,
    kind,
    publicKey: pair.publicKey,
    sealedPrivateKey,
    kekParams,
    dekTerm: dek.term,
    wrappedDek: w.wrapped,
    dekEphemeralKey: w.ephemeralPublicKey,
    createdAt: now,
    updatedAt: now,
  };
}

/** Opens a principal's copy of the DEK with its KEK (zeroed after); a wrong KEK is `unauthorized` with `wrongKey`. */
export function unwrapFor(row: PrincipalRow, kek: Buffer, term: number, wrongKey: string): Dek {
  let privateKey: Buffer | null = null;
  try {
    if (row.dekTerm !== term)
      throw new VaultError('wrong_term', `The ${row.kind} copy of the vault key is out of date.`);
    privateKey = openPrivateKey(kek, row.id, row.sealedPrivateKey);
    return {
      term,
      key: unwrapDek(privateKey, row.publicKey, term, row.id, {
        wrapped: row.wrappedDek,
        ephemeralPublicKey: row.dekEphemeralKey,
      }),
    };
  } catch (e) {
    if (e instanceof VaultError && e.kind === 'tampered' && !privateKey) throw new NexusError('unauthorized', wrongKey);
    throw e;
  } finally {
    privateKey?.fill(0);
    kek.fill(0);
  }
}

/**
 * The next DEK (term `term`): every secret (core's own too) resealed and every principal's copy rewrapped, `removeId`
 * deleted first, all in one transaction. On failure the new key is zeroed and nothing changed.
 */
export function rotateDek(db: Db, store: VaultStore, old: Dek, term: number, removeId?: string): Dek {
  const next: Dek = { term, key: randomKey() };
  const now = new Date().toISOString();
  try {
    db.transaction(() => {
      if (removeId) store.deletePrincipal(removeId);
      for (const s of store.secrets()) {
        const binding = { recordId: s.id, field: 'value' };
        const plain = openForRotation(old, s.dekTerm, s.sealedValue, binding, s.name);
        store.setSealedValue(s.id, next.term, seal(next.key, next.term, plain, binding));
        plain.fill(0);
      }
      const kept = new CoreSecretStore(db);
      for (const c of kept.all()) {
        const plain = openCoreSecret(old, c);
        if (!plain) {
          // Core's own copy, damaged: dropping it costs a fresh token at the next set, blocking would cost the rotation.
          kept.delete(c);
          continue;
        }
        kept.reseal(c, next.term, seal(next.key, next.term, plain, coreSecretBinding(c)));
        plain.fill(0);
      }
      for (const p of store.principals()) {
        const w = wrapDek(next.key, next.term, p.id, p.publicKey);
        store.setWrappedDek(p.id, next.term, w.wrapped, w.ephemeralPublicKey, now);
      }
      store.setTerm(next.term, now);
    })();
  } catch (e) {
    next.key.fill(0);
    throw e;
  }
  return next;
}

function openCoreSecret(old: Dek, row: CoreSecretRow): Buffer | null {
  try {
    return open(old.key, row.dekTerm, row.sealedValue, coreSecretBinding(row));
  } catch (e) {
    if (e instanceof VaultError) return null;
    throw e;
  }
}

/** A damaged secret stops the rotation with a message that says which one and what to do. */
function openForRotation(
  old: Dek,
  term: number,
  sealed: Buffer,
  binding: { recordId: string; field: string },
  name: string,
): Buffer {
  try {
    return open(old.key, term, sealed, binding);
  } catch (e) {
    if (!(e instanceof VaultError)) throw e;
    throw new NexusError(
      'conflict',
      `The secret "${name}" cannot be opened (damaged or moved), so the key was not rotated. Delete or replace it, then retry.`,
    );
  }
}
