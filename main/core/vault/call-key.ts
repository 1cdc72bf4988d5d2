import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dek } from './dek';

/**
 * The vault key of one call, not of the process. A vault-class MCP call opens the data key with
 * its machine principal and runs inside a scope that carries it; the operator's vault state
 * (locked stays locked) is untouched. Ending the scope zeroes the key, so work the call left
 * behind (a provisioning task, a timer) finds the vault as locked as it was.
 */
export interface VaultCallScope {
  run<T>(fn: () => T): T;
  end(): void;
}

/** A scope that carries no key: for callers that do not open the vault. */
export const noVaultScope: VaultCallScope = { run: (fn) => fn(), end: () => undefined };

export class CallKeys {
  private readonly storage = new AsyncLocalStorage<{ dek: Dek | null }>();

  /** The key of the call running now, if it opened one and has not ended. */
  current(): Dek | null {
    return this.storage.getStore()?.dek ?? null;
  }

  scope(dek: Dek): VaultCallScope {
    const handle: { dek: Dek | null } = { dek };
    return {
      run: (fn) => this.storage.run(handle, fn),
      end: () => {
        handle.dek?.key.fill(0);
        handle.dek = null;
      },
    };
  }
}
