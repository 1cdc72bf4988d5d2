import { AsyncEntry } from '@napi-rs/keyring';
import type { Keychain } from '../ports';

/**
 * The OS keychain through @napi-rs/keyring: Secret Service on Linux, Keychain on macOS, Credential
 * Manager on Windows. Used by the headless host and the tests; the Electron shell may pass its own.
 */
export class OsKeychain implements Keychain {
  async get(service: string, account: string): Promise<string | null> {
    return (await new AsyncEntry(service, account).getPassword()) ?? null;
  }
  async set(service: string, account: string, secret: string): Promise<void> {
    await new AsyncEntry(service, account).setPassword(secret);
  }
  async delete(service: string, account: string): Promise<void> {
    await new AsyncEntry(service, account).deletePassword();
  }
}
