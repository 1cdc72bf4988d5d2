import { AsyncEntry } from '@napi-rs/keyring';
import type { Keychain } from '../ports';

// Secret Service only on Linux: without it @napi-rs/keyring silently falls back to the kernel's keyutils
// store, which lives in memory and forgets the vault's key at reboot — a weaker keychain used silently.
const OPTIONS = { linux: { store: 'secret-service' as const } };

/**
 * The OS keychain through @napi-rs/keyring: Secret Service on Linux, Keychain on macOS, Credential
 * Manager on Windows (never the Linux kernel keyring). Used by the headless host and the tests; the Electron shell may pass its own.
 */
export class OsKeychain implements Keychain {
  async get(service: string, account: string): Promise<string | null> {
    return (await new AsyncEntry(service, account, OPTIONS).getPassword()) ?? null;
  }
  async set(service: string, account: string, secret: string): Promise<void> {
    await new AsyncEntry(service, account, OPTIONS).setPassword(secret);
  }
  async delete(service: string, account: string): Promise<void> {
    await new AsyncEntry(service, account, OPTIONS).deletePassword();
  }
}
