import type { Keychain } from '../../main/core/ports';

/** What @napi-rs/keyring says on a machine without a session bus (measured with `npm run serve`). */
export const NO_BUS =
  'Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead';

/** The OS keychain on a machine without a Secret Service: every call rejects the way the real one does. */
export class NoBusKeychain implements Keychain {
  calls = 0;
  get(): Promise<string | null> {
    return this.refuse();
  }
  set(): Promise<void> {
    return this.refuse();
  }
  delete(): Promise<void> {
    return this.refuse();
  }
  private refuse(): Promise<never> {
    this.calls++;
    return Promise.reject(new Error(NO_BUS));
  }
}

/**
 * An in-memory keychain that can stop answering mid-life: `down` rejects like a lost bus, `hang`
 * never answers (a D-Bus call stuck on a locked collection).
 */
export class SwitchableKeychain implements Keychain {
  readonly entries = new Map<string, string>();
  state: 'up' | 'down' | 'hang' = 'up';
  get(service: string, account: string): Promise<string | null> {
    return this.answer(() => this.entries.get(`${service}/${account}`) ?? null);
  }
  set(service: string, account: string, secret: string): Promise<void> {
    return this.answer(() => void this.entries.set(`${service}/${account}`, secret));
  }
  delete(service: string, account: string): Promise<void> {
    return this.answer(() => void this.entries.delete(`${service}/${account}`));
  }
  private answer<T>(f: () => T): Promise<T> {
    if (this.state === 'down') return Promise.reject(new Error(NO_BUS));
    if (this.state === 'hang') return new Promise<T>(() => undefined);
    return Promise.resolve(f());
  }
}
