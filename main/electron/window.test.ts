import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../test/fakes/electron'));
const fake = await import('../../test/fakes/electron');
const { createMainWindow, denyAllPermissions } = await import('./window');

describe('secure window factory', () => {
  const win = createMainWindow('/app/preload.cjs') as unknown as InstanceType<typeof fake.BrowserWindow>;
  const prefs = win.options.webPreferences as Record<string, unknown>;

  it('creates the window isolated, sandboxed, without Node and without webviews', () => {
    expect(prefs).toMatchObject({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    });
  });

  it('loads the renderer from app://, never file://', () => {
    expect(win.loadedUrl).toBe('app://nexus/');
  });

  it('denies window.open and navigation away from the app', () => {
    expect(win.webContents.openHandler?.({ url: 'https://evil.example' })).toEqual({ action: 'deny' });
    const away = { preventDefault: vi.fn() };
    win.webContents.emit('will-navigate', away, 'https://evil.example/');
    expect(away.preventDefault).toHaveBeenCalled();
    const inside = { preventDefault: vi.fn() };
    win.webContents.emit('will-navigate', inside, 'app://nexus/#/settings');
    expect(inside.preventDefault).not.toHaveBeenCalled();
    const webview = { preventDefault: vi.fn() };
    win.webContents.emit('will-attach-webview', webview);
    expect(webview.preventDefault).toHaveBeenCalled();
  });

  it('denies every permission request and check', () => {
    denyAllPermissions();
    const answer = vi.fn();
    fake.fakePermissionHandlers.request?.({}, 'media', answer);
    expect(answer).toHaveBeenCalledWith(false);
    expect(fake.fakePermissionHandlers.check?.()).toBe(false);
  });
});
