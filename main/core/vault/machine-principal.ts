import { NexusError } from '../../../shared/errors';
import { principalRow, unwrapFor, type Dek } from './dek';
import { credentialKek, newHkdfParams } from './principal-keys';
import { OPERATOR, RECOVERY, type VaultStore } from './vault-store';

// A machine principal: a copy of the data key whose KEK comes from a credential (an MCP token), so
// a vault-class call can open the vault for itself (vault.ts machineScope, call-key.ts).

const MACHINE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

/** Refuses an id or credential a machine principal cannot have, before the vault's key is asked for. */
export function checkMachinePrincipal(store: VaultStore, principalId: string, credential: string): void {
  if (principalId === OPERATOR || principalId === RECOVERY || !MACHINE_ID.test(principalId)) {
    throw new NexusError(
      'bad_request',
      'A machine principal id uses 1-100 letters, digits, dots, dashes, colons and underscores, and is not "operator" or "recovery".',
    );
  }
  if (credential.length < 32) throw new NexusError('bad_request', 'A machine credential needs at least 32 characters.');
  const existing = store.principal(principalId);
  if (existing && existing.kind !== 'machine')
    throw new NexusError('conflict', `"${principalId}" is not a machine principal.`);
}

/** Stores (or replaces) the machine's copy of `dek`, sealed under a KEK derived from `credential`. */
export function putMachineCopy(store: VaultStore, principalId: string, credential: string, dek: Dek): void {
  const params = newHkdfParams();
  const kek = credentialKek(credential, principalId, params);
  const now = new Date().toISOString();
  try {
    store.putPrincipal(principalRow(principalId, 'machine', kek, params, dek, now));
  } finally {
    kek.fill(0);
  }
}

/** Opens the data key of term `term` with a machine's credential; anything but a machine principal is `not_found`. */
export function openMachineCopy(store: VaultStore, principalId: string, credential: string, term: number): Dek {
  const row = store.principal(principalId);
  if (!row || row.kind !== 'machine' || row.kekParams.kdf !== 'hkdf')
    throw new NexusError('not_found', 'No such machine principal.');
  return unwrapFor(
    row,
    credentialKek(credential, principalId, row.kekParams),
    term,
    'That credential does not open the vault.',
  );
}
