import { app, Notification as ElectronNotification } from 'electron';
import { join } from 'node:path';
import { ListeningAddress, type ShellPorts } from '../host/node-ports';
import type { Notification, Notifier } from '../core/ports';
import { OsKeychain } from '../core/vault';

export class ElectronNotifier implements Notifier {
  constructor(private readonly onClick: (target: string | undefined) => void) {}
  notify(n: Notification): void {
    if (!ElectronNotification.isSupported()) return;
    const note = new ElectronNotification({ title: n.title, body: n.body, silent: false });
    note.on('click', () => this.onClick(n.target));
    note.show();
  }
}

export function electronPorts(onNotificationClick: (target: string | undefined) => void): ShellPorts {
  return {
    keychain: new OsKeychain(),
    notifier: new ElectronNotifier(onNotificationClick),
    paths: {
      dataDir: app.getPath('userData'),
      workerContextDir: join(app.isPackaged ? process.resourcesPath : app.getAppPath(), 'resources', 'worker'),
    },
    host: new ListeningAddress(),
  };
}
