import { resolve } from 'node:path';
import type { CorePorts, Notification, Notifier } from '../core/ports';
import { OsKeychain } from '../core/vault/os-keychain';

/** Headless notifier: keeps the last notifications for the UI and tests; the browser shows its own. */
export class MemoryNotifier implements Notifier {
  readonly sent: Notification[] = [];
  notify(n: Notification): void {
    this.sent.push(n);
    if (this.sent.length > 100) this.sent.shift();
  }
}

export function nodePorts(dataDir: string, appRoot: string): CorePorts {
  return {
    keychain: new OsKeychain(),
    notifier: new MemoryNotifier(),
    paths: { dataDir: resolve(dataDir), workerContextDir: resolve(appRoot, 'resources', 'worker') },
  };
}
