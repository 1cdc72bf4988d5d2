/**
 * A fake `electron` module for unit tests of the thin shell (the Electron binary cannot run here).
 * It records what the shell asks of Electron so tests can assert on it.
 */
type Listener = (...args: unknown[]) => void;

export class FakeWebContents {
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  readonly listeners = new Map<string, Listener[]>();
  readonly sent: { channel: string; args: unknown[] }[] = [];
  setWindowOpenHandler(h: (details: { url: string }) => { action: string }): void {
    this.openHandler = h;
  }
  on(name: string, l: Listener): this {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), l]);
    return this;
  }
  emit(name: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(name) ?? []) l(...args);
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
}

export class BrowserWindow {
  static created: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  loadedUrl: string | null = null;
  constructor(readonly options: Record<string, unknown>) {
    BrowserWindow.created.push(this);
  }
  loadURL(url: string): Promise<void> {
    this.loadedUrl = url;
    return Promise.resolve();
  }
  once(): this {
    return this;
  }
  on(): this {
    return this;
  }
  show(): void {}
}

const permissionHandlers: { request: Listener | null; check: Listener | null } = { request: null, check: null };
export const session = {
  defaultSession: {
    setPermissionRequestHandler: (h: Listener) => (permissionHandlers.request = h),
    setPermissionCheckHandler: (h: Listener) => (permissionHandlers.check = h),
  },
  /** Other partitions' handlers, by partition name. */
  partitions: new Map<string, { request: Listener | null; check: Listener | null }>(),
  fromPartition(name: string) {
    const handlers = this.partitions.get(name) ?? { request: null, check: null };
    this.partitions.set(name, handlers);
    return {
      setPermissionRequestHandler: (h: Listener) => (handlers.request = h),
      setPermissionCheckHandler: (h: Listener) => (handlers.check = h),
    };
  },
};
export const fakePermissionHandlers = permissionHandlers;

export const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
export const ipcMain = {
  handle: (channel: string, h: (event: unknown, ...args: unknown[]) => unknown) => {
    if (ipcHandlers.has(channel)) throw new Error(`second handler for ${channel}`);
    ipcHandlers.set(channel, h);
  },
  removeHandler: (channel: string) => ipcHandlers.delete(channel),
};

export const fakeApp = {
  badgeCount: 0,
  dock: {
    badge: '',
    setBadge(b: string) {
      this.badge = b;
    },
  },
  setBadgeCount(n: number) {
    this.badgeCount = n;
    return true;
  },
};
export { fakeApp as app };

export class Tray {
  static failNext = false;
  static created: Tray[] = [];
  tooltip = '';
  title = '';
  menu: unknown = null;
  destroyed = false;
  constructor(readonly image: unknown) {
    if (Tray.failNext) {
      Tray.failNext = false;
      throw new Error('no tray on this desktop');
    }
    Tray.created.push(this);
  }
  setToolTip(t: string): void {
    this.tooltip = t;
  }
  setTitle(t: string): void {
    this.title = t;
  }
  setContextMenu(m: unknown): void {
    this.menu = m;
  }
  destroy(): void {
    this.destroyed = true;
  }
}
/** `shell.openExternal` records the URLs it was handed (the system browser is not started). */
export const shell = {
  opened: [] as string[],
  openExternal(url: string): Promise<void> {
    this.opened.push(url);
    return Promise.resolve();
  },
};

export const Menu = { buildFromTemplate: (template: unknown[]) => ({ template }) };
export const nativeImage = { createFromPath: (p: string) => ({ path: p }) };

export class Notification {
  static shown: Notification[] = [];
  static isSupported(): boolean {
    return true;
  }
  private clickListener: (() => void) | null = null;
  constructor(readonly options: { title: string; body: string }) {}
  on(name: string, l: () => void): this {
    if (name === 'click') this.clickListener = l;
    return this;
  }
  show(): void {
    Notification.shown.push(this);
  }
  click(): void {
    this.clickListener?.();
  }
}
