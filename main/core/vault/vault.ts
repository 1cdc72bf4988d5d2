import { randomUUID } from 'node:crypto';
import type { VaultMode, VaultStatus } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import { AGENT_CREDENTIALS } from '../agents';
import type { StatusBoard } from '../app';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Keychain } from '../ports';
import type { Redactor } from '../redact';
import type { Db } from '../store';
import { CallKeys, type VaultCallScope } from './call-key';
import { randomKey } from './crypto';
import { principalRow, rotateDek, unwrapFor, type Dek } from './dek';
import { checkMachinePrincipal, openMachineCopy, putMachineCopy } from './machine-principal';
import { OperatorCopy } from './operator-copy';
import { newScryptParams, passphraseKek } from './principal-keys';
import { lockedReason, modeOf, NOT_SET_UP, unlockedReason } from './vault-mode';
import { SecretStore, type ResolvedSecret } from './secrets';
import { OPERATOR, RECOVERY, VaultStore, type VaultMetaRow } from './vault-store';

export interface VaultDeps {
  db: Db;
  keychain: Keychain;
  redactor: Redactor;
  log: Logger;
  events: EventBus;
  status: StatusBoard;
  dataDir: string;
  /** The key file for unattended unlock (--vault-key-file, NEXUS_VAULT_KEY_FILE, systemd credential). */
  keyFile?: string;
  /**
   * The agent credential kinds a secret may have beside the vault's own: what core's agent drivers declare
   * (AgentDrivers.credentials; default: the shipped registry's).
   */
  agentCredentialKinds?: () => readonly string[];
}

/**
 * Envelope encryption: one random data key (DEK) seals every secret; each principal (operator via
 * the OS keychain, recovery via a passphrase, machines via a credential) holds its own wrapped
 * copy. Removing a principal rotates the DEK and reseals every secret in one transaction.
 * Where no keychain can take the operator's key, the operator's copy opens with a passphrase (the
 * vault is sealed at every start until unlocked) or with a key file (see vault-mode.ts, key-file.ts);
 * operator-copy.ts opens that copy, machine-principal.ts keeps the machines' copies.
 */
export class VaultService {
  readonly secrets: SecretStore;
  private readonly store: VaultStore;
  private readonly operatorCopy: OperatorCopy;
  private dek: Dek | null = null;
  private readonly callKeys = new CallKeys();
  private reason = NOT_SET_UP;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: VaultDeps) {
    this.store = new VaultStore(deps.db);
    this.operatorCopy = new OperatorCopy({
      store: this.store,
      keychain: deps.keychain,
      log: deps.log,
      dataDir: deps.dataDir,
      keyFile: deps.keyFile,
      keychainUnreachable: () => void this.changed(),
    });
    const shipped = AGENT_CREDENTIALS.map((c) => c.kind);
    this.secrets = new SecretStore(
      this.store,
      () => this.requireDek(),
      deps.redactor,
      deps.events,
      deps.agentCredentialKinds ?? (() => shipped),
    );
  }

  status(): VaultStatus {
    const meta = this.store.meta();
    const principals = meta ? this.store.principals() : [];
    const operator = principals.find((p) => p.id === OPERATOR);
    return {
      state: !meta ? 'uninitialized' : this.dek ? 'unlocked' : 'locked',
      reason: meta ? this.reason : this.operatorCopy.setUpReason(),
      mode: operator ? modeOf(operator.kekParams) : null,
      keychainReachable: meta ? null : this.operatorCopy.keychainReachable,
      keyFile: this.deps.keyFile ?? null,
      keyTerm: meta?.dekTerm ?? null,
      hasRecoveryPassphrase: principals.some((p) => p.kind === 'recovery'),
      principals: principals.map((p) => ({ id: p.id, kind: p.kind, createdAt: p.createdAt })),
    };
  }

  get unlocked(): boolean {
    return this.dek !== null;
  }

  /**
   * Called once by createCore: a keychain vault unlocks through the OS keychain, a key-file vault
   * through its key file; a passphrase vault stays sealed until unlocked. Before set-up the keychain
   * is probed in the background, so set-up can offer the passphrase where it is unreachable.
   */
  start(): Promise<VaultStatus> {
    return this.serial(async () => {
      const meta = this.store.meta();
      if (meta) await this.openOperatorCopy(meta);
      else if (!this.deps.keyFile) void this.operatorCopy.probe();
      return this.changed();
    });
  }

  /** Sets up the vault; the operator's copy goes to the key file if one is configured, else to `passphrase` or the OS keychain. */
  init(opts: { recoveryPassphrase?: string; passphrase?: string } = {}): Promise<VaultStatus> {
    return this.serial(async () => {
      if (this.store.meta()) throw new NexusError('conflict', 'The vault is already set up.');
      const { recoveryPassphrase, passphrase } = opts;
      const mode: VaultMode = this.deps.keyFile ? 'key_file' : passphrase ? 'passphrase' : 'keychain';
      if (mode === 'key_file' && passphrase)
        throw new NexusError(
          'bad_request',
          `Nexus was started with the key file ${this.deps.keyFile}: the vault opens with it. Set a recovery passphrase instead.`,
        );
      if (recoveryPassphrase) this.deps.redactor.addSecret(recoveryPassphrase);
      if (passphrase) this.deps.redactor.addSecret(passphrase);
      const vaultId = randomUUID();
      const account = `${this.deps.dataDir}#${vaultId.slice(0, 8)}`;
      const dek: Dek = { term: 1, key: randomKey() };
      const recovery = recoveryPassphrase ? newScryptParams() : null;
      const recoveryKek = recovery && recoveryPassphrase ? await passphraseKek(recoveryPassphrase, recovery) : null;
      const { kek: operatorKek, params: operatorParams } = await this.operatorCopy
        .newKek(mode, account, passphrase)
        .catch((e: unknown) => {
          dek.key.fill(0);
          recoveryKek?.fill(0);
          throw e;
        });
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
          this.store.putPrincipal(principalRow(OPERATOR, 'operator', operatorKek, operatorParams, dek, now));
          if (recovery && recoveryKek)
            this.store.putPrincipal(principalRow(RECOVERY, 'recovery', recoveryKek, recovery, dek, now));
        })();
      } catch (e) {
        dek.key.fill(0);
        if (mode === 'keychain') await this.operatorCopy.forget(account);
        throw e;
      } finally {
        operatorKek.fill(0);
        recoveryKek?.fill(0);
      }
      this.setDek(dek, unlockedReason(mode, this.deps.keyFile));
      this.deps.log.info('vault initialized', { keyTerm: dek.term, recovery: Boolean(recovery), mode });
      return this.changed();
    });
  }

  lock(): Promise<VaultStatus> {
    return this.serial(async () => {
      this.requireMeta();
      this.dropDek(lockedReason(this.mode()));
      return this.changed();
    });
  }

  /**
   * With a passphrase: the vault passphrase (a passphrase vault) or the recovery one. Without:
   * retry the OS keychain or the key file (a passphrase vault needs its passphrase).
   */
  unlock(passphrase?: string): Promise<VaultStatus> {
    return this.serial(async () => {
      const meta = this.requireMeta();
      if (this.dek) return this.status();
      const mode = this.mode();
      if (passphrase === undefined) {
        if (mode === 'passphrase') throw new NexusError('bad_request', 'This vault is sealed: enter its passphrase.');
        await this.openOperatorCopy(meta);
        return this.changed();
      }
      this.deps.redactor.addSecret(passphrase);
      const rows = (mode === 'passphrase' ? [OPERATOR, RECOVERY] : [RECOVERY])
        .map((id) => this.store.principal(id))
        .filter((r) => r?.kekParams.kdf === 'scrypt');
      if (rows.length === 0) throw new NexusError('conflict', 'No recovery passphrase was set for this vault.');
      const wrong = mode === 'passphrase' ? 'Wrong passphrase.' : 'Wrong recovery passphrase.';
      for (const row of rows) {
        if (!row || row.kekParams.kdf !== 'scrypt') continue;
        let dek: Dek;
        try {
          dek = unwrapFor(row, await passphraseKek(passphrase, row.kekParams), meta.dekTerm, wrong);
        } catch (e) {
          if (e instanceof NexusError && e.code === 'unauthorized') continue;
          throw e;
        }
        const how =
          row.id === OPERATOR ? unlockedReason('passphrase', undefined) : 'Unlocked with the recovery passphrase.';
        this.setDek(dek, how);
        if (mode === 'keychain') await this.operatorCopy.repair(meta.keychainAccount, dek);
        this.deps.log.info('vault unlocked', { with: row.kind, mode });
        return this.changed();
      }
      this.deps.log.warn('vault unlock refused: wrong passphrase', { mode });
      throw new NexusError('unauthorized', wrong);
    });
  }

  /**
   * Rewraps only one passphrase copy: a new key pair sealed under the new passphrase. That is the
   * recovery copy, or for a passphrase vault the operator's own (the vault passphrase).
   */
  changePassphrase(currentPassphrase: string | undefined, newPassphrase: string): Promise<VaultStatus> {
    return this.serial(async () => {
      const meta = this.requireMeta();
      const dek = this.requireOperatorDek();
      const id = this.mode() === 'passphrase' ? OPERATOR : RECOVERY;
      const what = id === OPERATOR ? 'passphrase' : 'recovery passphrase';
      this.deps.redactor.addSecret(newPassphrase);
      const existing = this.store.principal(id);
      if (existing && existing.kekParams.kdf === 'scrypt') {
        if (!currentPassphrase) throw new NexusError('bad_request', `Enter the current ${what} to change it.`);
        this.deps.redactor.addSecret(currentPassphrase);
        const oldKek = await passphraseKek(currentPassphrase, existing.kekParams);
        unwrapFor(existing, oldKek, meta.dekTerm, `The current ${what} is wrong.`).key.fill(0);
      }
      const params = newScryptParams();
      const kek = await passphraseKek(newPassphrase, params);
      const now = new Date().toISOString();
      try {
        this.store.putPrincipal({
          ...principalRow(id, id === OPERATOR ? 'operator' : 'recovery', kek, params, dek, now),
          createdAt: existing?.createdAt ?? now,
        });
      } finally {
        kek.fill(0);
      }
      this.deps.log.info(`vault ${what} changed`, { replaced: Boolean(existing) });
      return this.changed();
    });
  }

  /** Adds (or replaces) a machine principal whose KEK comes from `credential` (an MCP token). */
  addMachinePrincipal(principalId: string, credential: string): Promise<VaultStatus> {
    return this.serial(async () => {
      checkMachinePrincipal(this.store, principalId, credential);
      putMachineCopy(this.store, principalId, credential, this.requireOperatorDek());
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
    // A sealed vault stays sealed for tokens too: only the keychain desktop lets a token open a locked vault.
    if (!this.dek && this.mode() !== 'keychain')
      throw new NexusError('vault_locked', `The vault is locked. ${this.reason}`);
    const scope = this.callKeys.scope(openMachineCopy(this.store, principalId, credential, meta.dekTerm));
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
    this.operatorCopy.dispose();
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

  /** How this vault opens (from its operator principal). */
  private mode(): VaultMode {
    return this.operatorCopy.mode();
  }

  /** At start and on a retry: the operator's copy through the keychain or the key file; a passphrase vault stays sealed. */
  private async openOperatorCopy(meta: VaultMetaRow): Promise<void> {
    const opened = await this.operatorCopy.open(meta);
    if ('dek' in opened) this.setDek(opened.dek, opened.reason);
    else this.dropDek(opened.refused);
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
    this.deps.status.set('vault', { state: status.state, reason: status.reason, mode: status.mode });
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
