import { resolve } from 'node:path';
import type { CorePorts, HostAddress, Notification, Notifier } from '../core/ports';
import { OsKeychain } from '../core/vault';

/** Headless notifier: keeps the last notifications for the UI and tests; the browser shows its own. */
export class MemoryNotifier implements Notifier {
  readonly sent: Notification[] = [];
  notify(n: Notification): void {
    this.sent.push(n);
    if (this.sent.length > 100) this.sent.shift();
  }
}

/** The host's address as core sees it: the shell that starts the host says when it listens. */
export class ListeningAddress implements HostAddress {
  private current: string | null = null;
  url(): string | null {
    return this.current;
  }
  listening(url: string): void {
    this.current = url;
  }
}

/** Ports a shell hands to core; it keeps `host` to fill in once the loopback host listens. */
export type ShellPorts = CorePorts & { host: ListeningAddress };

export function nodePorts(dataDir: string, appRoot: string): ShellPorts {
  return {
    keychain: new OsKeychain(),
    notifier: new MemoryNotifier(),
    paths: { dataDir: resolve(dataDir), workerContextDir: resolve(appRoot, 'resources', 'worker') },
    host: new ListeningAddress(),
  };
}
