import type { Logger } from '../log';
import type { Keychain } from '../ports';
import type { Redactor } from '../redact';
import type { CoreSecret, SecretFallback } from './core-secret';
import { KEYCHAIN_SERVICE, withTimeout } from './operator-key';
import type { SealedCoreSecrets } from './sealed-core-secrets';

export interface CoreSecretsDeps {
  keychain: Keychain;
  sealed: SealedCoreSecrets;
  redactor: Redactor;
  log: Logger;
  dataDir: string;
  /** How long one keychain call may take before it counts as unreachable (a D-Bus call can hang). */
  timeoutMs?: number;
  /** How long "unreachable" is believed before the keychain is probed again. */
  retryMs?: number;
}

const TIMEOUT_MS = 5_000;
const RETRY_MS = 5 * 60_000;

/**
 * The one place core keeps its own secrets (delegated secrets, Claude Desktop's token): the OS keychain
 * where it answers, else the secret's fallback. Whether the keychain answers is probed once (a
 * throwaway entry, bounded in time) and believed until a call fails, or for `retryMs` when it did
 * not answer. An entry in the fallback is always the newer one: a keychain write removes it, so a
 * read looks there first, then in the keychain (where secrets kept before the fallback existed are). A secret
 * renamed since (`formerly`) is found under its old name once and moved to the new one.
 */
export class CoreSecrets {
  private answers: { ok: boolean; at: number } | null = null;
  private probing: Promise<boolean> | null = null;
  private readonly timeoutMs: number;
  private readonly retryMs: number;

  constructor(private readonly deps: CoreSecretsDeps) {
    this.timeoutMs = deps.timeoutMs ?? TIMEOUT_MS;
    this.retryMs = deps.retryMs ?? RETRY_MS;
  }

  async get(secret: CoreSecret): Promise<string | null> {
    const found = await this.read(secret);
    if (found !== null || !secret.formerly) return found;
    const former: CoreSecret = { ...secret.formerly, fallback: secret.fallback };
    const old = await this.read(former);
    if (old === null) return null;
    await this.set(secret, old);
    await this.delete(former);
    this.deps.log.info('a core secret moved to its new name', { from: former.service, to: secret.service });
    return old;
  }

  private async read(secret: CoreSecret): Promise<string | null> {
    const kept = this.fallbackOf(secret).read();
    if (kept !== null) return this.known(kept);
    if (!(await this.keychainAnswers())) return null;
    try {
      const found = await withTimeout(this.deps.keychain.get(secret.service, secret.account), this.timeoutMs);
      return found === null ? null : this.known(found);
    } catch (e) {
      this.unreachable(e);
      return null;
    }
  }

  /** Throws the typed refusal `set` would meet (`vault_locked`), so nothing is minted that cannot be kept. */
  async ready(secret: CoreSecret): Promise<void> {
    if (!(await this.keychainAnswers())) this.fallbackOf(secret).ready();
  }

  async set(secret: CoreSecret, value: string): Promise<void> {
    this.deps.redactor.addSecret(value);
    const fallback = this.fallbackOf(secret);
    if (await this.keychainAnswers()) {
      try {
        await withTimeout(this.deps.keychain.set(secret.service, secret.account, value), this.timeoutMs);
        fallback.remove();
        return;
      } catch (e) {
        this.unreachable(e);
      }
    }
    fallback.write(value);
  }

  async delete(secret: CoreSecret): Promise<void> {
    if (secret.formerly) await this.delete({ ...secret.formerly, fallback: secret.fallback });
    this.fallbackOf(secret).remove();
    if (!(await this.keychainAnswers())) return;
    try {
      await withTimeout(this.deps.keychain.delete(secret.service, secret.account), this.timeoutMs);
    } catch (e) {
      // "No entry" rejects too, so a failed delete says nothing about the keychain; a stale entry is
      // harmless (every reader checks the token it finds against the token store).
      this.deps.log.debug('forgetting a keychain entry failed', { service: secret.service, error: e });
    }
  }

  /** Whether the keychain answers: probed once, believed until a call fails or for `retryMs` after it did not. */
  async keychainAnswers(): Promise<boolean> {
    const known = this.answers;
    if (known && (known.ok || Date.now() - known.at < this.retryMs)) return known.ok;
    this.probing ??= this.probe().finally(() => (this.probing = null));
    return this.probing;
  }

  private async probe(): Promise<boolean> {
    const account = `${this.deps.dataDir}#core-secrets-probe`;
    try {
      await withTimeout(this.deps.keychain.set(KEYCHAIN_SERVICE, account, 'probe'), this.timeoutMs);
      await withTimeout(this.deps.keychain.delete(KEYCHAIN_SERVICE, account), this.timeoutMs);
      if (this.answers?.ok === false) this.deps.log.info('the OS keychain answers again: core secrets go there');
      this.answers = { ok: true, at: Date.now() };
    } catch (e) {
      this.unreachable(e);
    }
    return this.answers?.ok ?? false;
  }

  private unreachable(e: unknown): void {
    if (this.answers?.ok !== false)
      this.deps.log.warn('the OS keychain is not reachable: core secrets go to the vault or the data dir', {
        error: e,
      });
    this.answers = { ok: false, at: Date.now() };
  }

  private fallbackOf(secret: CoreSecret): SecretFallback {
    return secret.fallback === 'vault' ? this.deps.sealed.at(secret) : secret.fallback;
  }

  private known(value: string): string {
    this.deps.redactor.addSecret(value);
    return value;
  }
}
