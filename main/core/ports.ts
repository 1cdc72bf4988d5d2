/**
 * Electron-only capabilities reach core through these small ports. The Electron shell implements
 * them with Electron; the headless host and the tests implement them with plain Node.
 */

/** The OS keychain (Secret Service, macOS Keychain, Windows Credential Manager). */
export interface Keychain {
  /** Resolves to null when there is no entry. Rejects when the keychain cannot be reached. */
  get(service: string, account: string): Promise<string | null>;
  set(service: string, account: string, secret: string): Promise<void>;
  delete(service: string, account: string): Promise<void>;
}

export interface Notification {
  title: string;
  body: string;
  /** Where a click should take the operator, e.g. `session:<id>`. */
  target?: string;
}

export interface Notifier {
  notify(notification: Notification): void;
}

export interface AppPaths {
  /** Where the database, logs, generated configs and serve.json live. */
  dataDir: string;
  /** Where the worker image build context lives (resources/worker). */
  workerContextDir: string;
}

/** Where the loopback host listens (e.g. `http://127.0.0.1:4780`): null until it does, or when no host runs. */
export interface HostAddress {
  url(): string | null;
}

export interface CorePorts {
  keychain: Keychain;
  notifier: Notifier;
  paths: AppPaths;
  host: HostAddress;
}
