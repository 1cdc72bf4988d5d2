import { randomUUID } from 'node:crypto';
import type { VaultStatus } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { StatusBoard } from '../app/status';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Keychain } from '../ports';
import type { Redactor } from '../redact';
import type { Db } from '../store/open';
import { CallKeys, type VaultCallScope } from './call-key';
import { randomKey } from './crypto';
import { principalRow, rotateDek, unwrapFor, type Dek } from './dek';
import { OperatorKey } from './operator-key';
import { credentialKek, newHkdfParams, newScryptParams, passphraseKek } from './principal-keys';
import { SecretStore, type ResolvedSecret } from './secrets';
import { VaultStore } from './vault-store';

export interface VaultDeps {
  db: Db;
  keychain: Keychain;
  redactor: Redactor;
  log: Logger;
  events: EventBus;
  status: StatusBoard;
  dataDir: string;
}

const OPERATOR = 'operator';
const RECOVERY = 'recovery';
const MACHINE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

/**
 * Envelope encryption: one random data key (DEK) seals every secret; each principal (operator via
 * the OS keychain, recovery via a passphrase, machines via a credential) holds its own wrapped
 * copy. Removing a principal rotates the DEK and reseals every secret in one transaction.
 */
export class VaultService {
  readonly secrets: SecretStore;
  private readonly store: VaultStore;
  private readonly operatorKey: OperatorKey;
  private dek: Dek | null = null;
  private readonly callKeys = new CallKeys();
  private reason = 'The vault has not been set up yet.';
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: VaultDeps) {
    this.store = new VaultStore(deps.db);
    this.operatorKey = new OperatorKey(deps.keychain);
    this.secrets = new SecretStore(this.store, () => this.requireDek(), deps.redactor, deps.events);
  }

  status(): VaultStatus {
    const meta = this.store.meta();
    const principals = meta ? this.store.principals() : [];
    return {
      state: !meta ? 'uninitialized' : this.dek ? 'unlocked' : 'locked',
      reason: meta ? this.reason : 'The vault has not been set up yet.',
      keyTerm: meta?.dekTerm ?? null,
      hasRecoveryPassphrase: principals.some((p) => p.kind === 'recovery'),
      principals: principals.map((p) => ({ id: p.id, kind: p.kind, createdAt: p.createdAt })),
    };
  }

  get unlocked(): boolean {
    return this.dek !== null;
  }

  /** Called once by createCore: unlock through the OS keychain when the vault exists. */
  start(): Promise<VaultStatus> {
    return this.serial(async () => {
      if (this.store.meta()) await this.unlockWithKeychain();
      return this.changed();
    });
  }

  init(recoveryPassphrase?: string): Promise<VaultStatus> {
    return this.serial(async () => {
      if (this.store.meta()) throw new NexusError('conflict', 'The vault is already set up.');
      if (recoveryPassphrase) this.deps.redactor.addSecret(recoveryPassphrase);
      const vaultId = randomUUID();
      const account = `${this.deps.dataDir}#${vaultId.slice(0, 8)}`;
      const dek: Dek = { term: 1, key: randomKey() };
      const operatorKek = randomKey();
      const recovery = recoveryPassphrase ? newScryptParams() : null;
      const recoveryKek = recovery && recoveryPassphrase ? await passphraseKek(recoveryPassphrase, recovery) : null;
      await this.operatorKey.write(account, operatorKek);
      const now = new Date().toISOString();
      try {
        this.deps.db.transaction(() => {
          this.store.insertMeta({
            vaultId,
            keychainAccount: account,
            dekTerm: dek.term,
            createdAt: now,
            rotatedAt: null,
          });
          this.store.putPrincipal(principalRow(OPERATOR, 'operator', operatorKek, { kdf: 'keychain' }, dek, now));
          if (recovery && recoveryKek)
            this.store.putPrincipal(principalRow(RECOVERY, 'recovery', recoveryKek, recovery, dek, now));
        })();
      } catch (e) {
        dek.key.fill(0);
        await this.operatorKey.remove(account);
        throw e;
      } finally {
        operatorKek.fill(0);
        recoveryKek?.fill(0);
      }
      this.setDek(dek, 'Unlocked: the key is in the OS keychain.');
      this.deps.log.info('vault initialized', { keyTerm: dek.term, recovery: Boolean(recovery) });
      return this.changed();
    });
  }

  lock(): Promise<VaultStatus> {
    return this.serial(async () => {
      this.requireMeta();
      this.dropDek('Locked by the operator. Unlock with the recovery passphrase or retry the OS keychain.');
      return this.changed();
    });
  }

  /** With a passphrase: the recovery principal. Without: retry the OS keychain. */
  unlock(passphrase?: string): Promise<VaultStatus> {
    return this.serial(async () => {
      const meta = this.requireMeta();
      if (this.dek) return this.status();
      if (passphrase === undefined) {
        await this.unlockWithKeychain();
        return this.changed();
      }
      this.deps.redactor.addSecret(passphrase);
      const row = this.store.principal(RECOVERY);
      if (!row || row.kekParams.kdf !== 'scrypt')
        throw new NexusError('conflict', 'No recovery passphrase was set for this vault.');
      const kek = await passphraseKek(passphrase, row.kekParams);
      const dek = unwrapFor(row, kek, meta.dekTerm, 'Wrong recovery passphrase.');
      this.setDek(dek, 'Unlocked with the recovery passphrase.');
      await this.repairOperatorCopy(meta.keychainAccount);
      return this.changed();
    });
  }

  /** Rewraps only the recovery copy: a new key pair sealed under the new passphrase. */
  changePassphrase(currentPassphrase: string | undefined, newPassphrase: string): Promise<VaultStatus> {
    return this.serial(async () => {
      const meta = this.requireMeta();
      const dek = this.requireOperatorDek();
      this.deps.redactor.addSecret(newPassphrase);
      const existing = this.store.principal(RECOVERY);
      if (existing && existing.kekParams.kdf === 'scrypt') {
        if (!currentPassphrase)
          throw new NexusError('bad_request', 'Enter the current recovery passphrase to change it.');
        this.deps.redactor.addSecret(currentPassphrase);
        const oldKek = await passphraseKek(currentPassphrase, existing.kekParams);
        unwrapFor(existing, oldKek, meta.dekTerm, 'The current recovery passphrase is wrong.').key.fill(0);
      }
      const params = newScryptParams();
      const kek = await passphraseKek(newPassphrase, params);
      const now = new Date().toISOString();
      try {
        this.store.putPrincipal({
          ...principalRow(RECOVERY, 'recovery', kek, params, dek, now),
          createdAt: existing?.createdAt ?? now,
        });
      } finally {
        kek.fill(0);
      }
      this.deps.log.info('vault recovery passphrase changed', { replaced: Boolean(existing) });
      return this.changed();
    });
  }

  /** Adds (or replaces) a machine principal whose KEK comes from `credential` (an MCP token). */
  addMachinePrincipal(principalId: string, credential: string): Promise<VaultStatus> {
    return this.serial(async () => {
      checkMachineId(principalId);
      if (credential.length < 32)
        throw new NexusError('bad_request', 'A machine credential needs at least 32 characters.');
      const existing = this.store.principal(principalId);
      if (existing && existing.kind !== 'machine')
        throw new NexusError('conflict', `"${principalId}" is not a machine principal.`);
      const dek = this.requireOperatorDek();
      const params = newHkdfParams();
      const kek = credentialKek(credential, principalId, params);
      const now = new Date().toISOString();
      try {
        this.store.putPrincipal(principalRow(principalId, 'machine', kek, params, dek, now));
      } finally {
        kek.fill(0);
      }
      this.deps.log.info('vault principal added', { principal: principalId, kind: 'machine' });
      return this.changed();
    });
  }

  /**
   * Opens the data key with a machine credential for one call only: the key lives in the returned
   * scope (see call-key.ts), the operator's state is unchanged (a locked vault stays locked).
   */
  machineScope(principalId: string, credential: string): VaultCallScope {
    const meta = this.requireMeta();
    const row = this.store.principal(principalId);
    if (!row || row.kind !== 'machine' || row.kekParams.kdf !== 'hkdf')
      throw new NexusError('not_found', 'No such machine principal.');
    const dek = unwrapFor(
      row,
      credentialKek(credential, principalId, row.kekParams),
      meta.dekTerm,
      'That credential does not open the vault.',
    );
    const scope = this.callKeys.scope(dek);
    // Every value is known to the redactor before the call could print one (as after an unlock).
    if (!this.dek) scope.run(() => this.secrets.registerAll());
    return scope;
  }

  /** Deletes a principal's copy and rotates the DEK, resealing every secret, in one transaction. */
  removePrincipal(principalId: string): Promise<VaultStatus> {
    return this.serial(async () => {
      if (principalId === OPERATOR) throw new NexusError('bad_request', 'The operator principal cannot be removed.');
      if (!this.store.principal(principalId)) throw new NexusError('not_found', `No vault principal "${principalId}".`);
      this.rotateNow(principalId);
      this.deps.log.info('vault principal removed', { principal: principalId });
      return this.changed();
    });
  }

  /** Rotates the DEK without removing anyone (also what removePrincipal does after the delete). */
  rotate(): Promise<VaultStatus> {
    return this.serial(async () => {
      this.rotateNow();
      return this.changed();
    });
  }

  /** Core-only: the Docker code resolves a provider token here. Never exposed as an operation. */
  async resolveSecret(id: string): Promise<ResolvedSecret> {
    return this.secrets.resolve(id);
  }

  /** The DEK for sealing or opening secrets (the operator's, or the running call's own), or a typed refusal. */
  requireDek(): Dek {
    this.requireMeta();
    const dek = this.dek ?? this.callKeys.current();
    if (!dek) throw new NexusError('vault_locked', `The vault is locked. ${this.reason}`);
    return dek;
  }

  /** The operator's DEK: lifecycle changes (principals, rotation) never run on a call's key. */
  private requireOperatorDek(): Dek {
    this.requireMeta();
    if (!this.dek) throw new NexusError('vault_locked', `The vault is locked. ${this.reason}`);
    return this.dek;
  }

  dispose(): void {
    this.dek?.key.fill(0);
    this.dek = null;
  }

  private rotateNow(removeId?: string): void {
    const meta = this.requireMeta();
    const old = this.requireOperatorDek();
    const next = rotateDek(this.deps.db, this.store, old, meta.dekTerm + 1, removeId);
    old.key.fill(0);
    this.dek = next;
    this.deps.log.info('vault key rotated', { keyTerm: next.term });
  }

  private async unlockWithKeychain(): Promise<void> {
    const meta = this.requireMeta();
    const read = await this.operatorKey.read(meta.keychainAccount);
    if (read.kind !== 'found') {
      this.dropDek(read.reason);
      this.deps.log.warn('vault locked', { reason: read.reason });
      return;
    }
    const row = this.store.principal(OPERATOR);
    try {
      if (!row) throw new NexusError('vault_locked', 'This vault has no operator copy of its key.');
      this.setDek(
        unwrapFor(row, read.kek, meta.dekTerm, 'The key in the OS keychain does not open this vault.'),
        'Unlocked: the key is in the OS keychain.',
      );
    } catch (e) {
      const reason = `${e instanceof Error ? e.message : String(e)} Unlock with the recovery passphrase.`;
      this.dropDek(reason);
      this.deps.log.warn('vault locked', { reason });
    }
  }

  /** After a recovery unlock, put a fresh operator key back in the keychain if its entry is gone. */
  private async repairOperatorCopy(account: string): Promise<void> {
    const dek = this.dek;
    if (!dek) return;
    const read = await this.operatorKey.read(account);
    if (read.kind !== 'missing') {
      if (read.kind === 'found') read.kek.fill(0);
      return;
    }
    const kek = randomKey();
    try {
      await this.operatorKey.write(account, kek);
      const existing = this.store.principal(OPERATOR);
      const now = new Date().toISOString();
      this.store.putPrincipal({
        ...principalRow(OPERATOR, 'operator', kek, { kdf: 'keychain' }, dek, now),
        createdAt: existing?.createdAt ?? now,
      });
      this.deps.log.info('vault operator key restored in the OS keychain');
    } catch (e) {
      this.deps.log.warn('vault operator key not restored', { error: e });
    } finally {
      kek.fill(0);
    }
  }

  private setDek(dek: Dek, reason: string): void {
    if (this.dek && this.dek !== dek) this.dek.key.fill(0);
    this.dek = dek;
    this.reason = reason;
    this.secrets.registerAll();
  }

  private dropDek(reason: string): void {
    this.dek?.key.fill(0);
    this.dek = null;
    this.reason = reason;
  }

  private requireMeta() {
    const meta = this.store.meta();
    if (!meta) throw new NexusError('vault_uninitialized', 'The vault has not been set up yet: open Settings → Vault.');
    return meta;
  }

  private changed(): VaultStatus {
    const status = this.status();
    this.deps.status.set('vault', { state: status.state, reason: status.reason });
    this.deps.events.emit('vault.changed', status);
    return status;
  }

  /** Lifecycle changes run one at a time (init, unlock and rotation must not interleave). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function checkMachineId(id: string): void {
  if (id === OPERATOR || id === RECOVERY || !MACHINE_ID.test(id)) {
    throw new NexusError(
      'bad_request',
      'A machine principal id uses 1-100 letters, digits, dots, dashes, colons and underscores, and is not "operator" or "recovery".',
    );
  }
}
