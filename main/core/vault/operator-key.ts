import { NexusError } from '../../../shared/errors';
import type { Keychain } from '../ports';
import { KEY_BYTES } from './crypto';

/** Keychain service name for every Nexus vault; the account names the vault (and its data dir). */
export const KEYCHAIN_SERVICE = 'nexus-desktop';
const TIMEOUT_MS = 10_000;

export type OperatorKeyRead =
  { kind: 'found'; kek: Buffer } | { kind: 'missing'; reason: string } | { kind: 'unavailable'; reason: string };

/**
 * The operator's KEK in the OS keychain: 32 random bytes, base64. Every failure is reported as a
 * reason the UI shows; there is no fallback to a file, an env var or a built-in key.
 */
export class OperatorKey {
  constructor(private readonly keychain: Keychain) {}

  async read(account: string): Promise<OperatorKeyRead> {
    let stored: string | null;
    try {
      stored = await withTimeout(this.keychain.get(KEYCHAIN_SERVICE, account));
    } catch (e) {
      return { kind: 'unavailable', reason: unreachable(e) };
    }
    if (stored === null) {
      // Without a Secret Service some backends answer "no entry" to reads: probe a write to tell the two apart.
      const probe = await this.probe(account);
      if (probe) return { kind: 'unavailable', reason: probe };
      return {
        kind: 'missing',
        reason:
          'The OS keychain has no key for this vault (the entry was deleted or belongs to another machine). ' +
          'Unlock with the recovery passphrase.',
      };
    }
    const kek = Buffer.from(stored, 'base64');
    if (kek.length !== KEY_BYTES)
      return {
        kind: 'missing',
        reason: 'The OS keychain entry for this vault is damaged. Unlock with the recovery passphrase.',
      };
    return { kind: 'found', kek };
  }

  /** Stores the KEK; throws `unavailable` with the reason when the keychain cannot take it. */
  async write(account: string, kek: Buffer): Promise<void> {
    try {
      await withTimeout(this.keychain.set(KEYCHAIN_SERVICE, account, kek.toString('base64')));
    } catch (e) {
      throw new NexusError('unavailable', `${unreachable(e)} The vault needs it to keep its key; nothing was stored.`);
    }
  }

  async remove(account: string): Promise<void> {
    try {
      await withTimeout(this.keychain.delete(KEYCHAIN_SERVICE, account));
    } catch {
      // Best effort: a stale entry opens nothing once its principal row is gone.
    }
  }

  /** Null when the keychain takes (and deletes) a throwaway entry; else the reason it cannot. */
  async probe(account: string): Promise<string | null> {
    const probeAccount = `${account}#probe`;
    try {
      await withTimeout(this.keychain.set(KEYCHAIN_SERVICE, probeAccount, 'probe'));
      await withTimeout(this.keychain.delete(KEYCHAIN_SERVICE, probeAccount));
      return null;
    } catch (e) {
      return unreachable(e);
    }
  }
}

function unreachable(e: unknown): string {
  const detail = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 200);
  return `The OS keychain (Secret Service) is not reachable (${detail}).`;
}

/** `p`, or a rejection naming the wait when the keychain (a D-Bus call that may hang) does not answer within `ms`. */
export async function withTimeout<T>(p: Promise<T>, ms = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
