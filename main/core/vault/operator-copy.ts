import type { VaultMode } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { Logger } from '../log';
import type { Keychain } from '../ports';
import { randomKey } from './crypto';
import { principalRow, unwrapFor, type Dek } from './dek';
import { keyFileKekForSetUp, keyFileSetUpNote, openWithKeyFile } from './key-file-kek';
import { OperatorKey } from './operator-key';
import { newScryptParams, passphraseKek, type KekParams } from './principal-keys';
import { keychainSetUpHint, modeOf, NOT_SET_UP, SEALED, unlockedReason } from './vault-mode';
import { OPERATOR, RECOVERY, type VaultMetaRow, type VaultStore } from './vault-store';

export interface OperatorCopyDeps {
  store: VaultStore;
  keychain: Keychain;
  log: Logger;
  dataDir: string;
  /** The key file for unattended unlock (--vault-key-file, NEXUS_VAULT_KEY_FILE, systemd credential). */
  keyFile?: string;
  /** Told when the OS keychain turns out unreachable before set-up: the vault's status changed. */
  keychainUnreachable: () => void;
}

/** The operator's copy opened: the data key and the sentence the UI shows, or why the vault stays locked. */
export type OperatorOpen = { dek: Dek; reason: string } | { refused: string };

/**
 * The operator's copy of the data key, wherever the vault's mode keeps its KEK: the OS keychain
 * (probed before set-up, put back after a recovery unlock), a key file, or a passphrase (which
 * nothing opens at start: the vault is sealed until unlocked). See vault-mode.ts, key-file-kek.ts.
 */
export class OperatorCopy {
  private readonly key: OperatorKey;
  /** Before set-up: can the OS keychain take a key (null: not probed yet)? */
  private reachable: boolean | null = null;
  private keychainProblem = '';
  private disposed = false;

  constructor(private readonly deps: OperatorCopyDeps) {
    this.key = new OperatorKey(deps.keychain);
  }

  get keychainReachable(): boolean | null {
    return this.reachable;
  }

  /** How this vault opens (from its operator principal). */
  mode(): VaultMode {
    const row = this.deps.store.principal(OPERATOR);
    return row ? modeOf(row.kekParams) : 'keychain';
  }

  /** At start and on a retry: the operator's copy through the keychain or the key file; a passphrase vault stays sealed. */
  async open(meta: VaultMetaRow): Promise<OperatorOpen> {
    const mode = this.mode();
    if (mode === 'keychain') return this.openWithKeychain(meta);
    if (mode === 'key_file') return this.openWithKeyFile(meta);
    return { refused: SEALED };
  }

  /** The operator KEK for a new vault, and how to find it again (nothing is stored when it fails). */
  async newKek(
    mode: VaultMode,
    account: string,
    passphrase: string | undefined,
  ): Promise<{ kek: Buffer; params: KekParams }> {
    if (mode === 'passphrase' && passphrase) {
      const params = newScryptParams();
      return { kek: await passphraseKek(passphrase, params), params };
    }
    if (mode === 'key_file' && this.deps.keyFile) return keyFileKekForSetUp(this.deps.keyFile);
    const kek = randomKey();
    try {
      await this.key.write(account, kek);
    } catch (e) {
      kek.fill(0);
      const message = e instanceof Error ? e.message : String(e);
      this.reachable = false;
      this.keychainProblem = message;
      this.deps.keychainUnreachable();
      throw new NexusError('unavailable', `${message} ${keychainSetUpHint}`);
    }
    this.reachable = true;
    return { kek, params: { kdf: 'keychain' } };
  }

  /** Takes back the keychain entry of a set-up that failed after writing it. */
  forget(account: string): Promise<void> {
    return this.key.remove(account);
  }

  /** Before set-up: can the OS keychain take a key? (A throwaway entry is written and deleted.) */
  async probe(): Promise<void> {
    const problem = await this.key.probe(`${this.deps.dataDir}#set-up`);
    if (this.disposed || this.reachable !== null) return;
    this.reachable = problem === null;
    this.keychainProblem = problem ?? '';
    if (problem !== null && !this.deps.store.meta()) this.deps.keychainUnreachable();
  }

  /** The uninitialized vault's reason: what set-up will do with the key file, or why the keychain cannot take a key. */
  setUpReason(): string {
    if (this.deps.keyFile) return `${NOT_SET_UP} ${keyFileSetUpNote(this.deps.keyFile)}`;
    if (this.reachable === false) return `${NOT_SET_UP} ${this.keychainProblem} ${keychainSetUpHint}`;
    return NOT_SET_UP;
  }

  /** After a recovery unlock, put a fresh operator key back in the keychain if its entry is gone. */
  async repair(account: string, dek: Dek): Promise<void> {
    const read = await this.key.read(account);
    if (read.kind !== 'missing') {
      if (read.kind === 'found') read.kek.fill(0);
      return;
    }
    const kek = randomKey();
    try {
      await this.key.write(account, kek);
      const existing = this.deps.store.principal(OPERATOR);
      const now = new Date().toISOString();
      this.deps.store.putPrincipal({
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

  dispose(): void {
    this.disposed = true;
  }

  private openWithKeyFile(meta: VaultMetaRow): OperatorOpen {
    const path = this.deps.keyFile;
    const opened = openWithKeyFile(this.deps.store.principal(OPERATOR), meta.dekTerm, path);
    if ('dek' in opened) return { dek: opened.dek, reason: unlockedReason('key_file', path) };
    const orRecovery = this.deps.store.principal(RECOVERY) ? ' Or unlock with the recovery passphrase.' : '';
    this.deps.log.warn('vault locked', { reason: opened.refused });
    return { refused: `${opened.refused}${orRecovery}` };
  }

  private async openWithKeychain(meta: VaultMetaRow): Promise<OperatorOpen> {
    const read = await this.key.read(meta.keychainAccount);
    if (read.kind !== 'found') {
      this.deps.log.warn('vault locked', { reason: read.reason });
      return { refused: read.reason };
    }
    const row = this.deps.store.principal(OPERATOR);
    try {
      if (!row) throw new NexusError('vault_locked', 'This vault has no operator copy of its key.');
      return {
        dek: unwrapFor(row, read.kek, meta.dekTerm, 'The key in the OS keychain does not open this vault.'),
        reason: 'Unlocked: the key is in the OS keychain.',
      };
    } catch (e) {
      const reason = `${e instanceof Error ? e.message : String(e)} Unlock with the recovery passphrase.`;
      this.deps.log.warn('vault locked', { reason });
      return { refused: reason };
    }
  }
}
