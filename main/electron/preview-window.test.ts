import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../test/fakes/electron'));
const fake = await import('../../test/fakes/electron');
const { openPreviewWindow, previewUrl, PREVIEW_PARTITION } = await import('./preview-window');

describe('preview windows', () => {
  it("knows a preview link on the app's own loopback port, and nothing else", () => {
    expect(previewUrl('http://5173-fix.shop.localhost:4780/a?b=1', 4780)).toBe(
      'http://5173-fix.shop.localhost:4780/a?b=1',
    );
    for (const url of [
      'http://5173-fix.shop.localhost:4781/',
      'https://5173-fix.shop.localhost:4780/',
      'http://user:pw@5173-fix.shop.localhost:4780/',
      'http://127.0.0.1:4780/',
      'http://5173-fix.shop.localhost.evil.example:4780/',
      'https://github.com/acme/app',
      'not a url',
    ])
      expect(previewUrl(url, 4780), url).toBeNull();
    expect(previewUrl('http://5173-fix.shop.localhost:4780/', null)).toBeNull();
  });

  it('opens the preview sandboxed, without preload or Node, in its own partition, granting nothing', () => {
    const win = openPreviewWindow('http://5173-fix.shop.localhost:4780/') as unknown as InstanceType<
      typeof fake.BrowserWindow
    >;
    expect(win.loadedUrl).toBe('http://5173-fix.shop.localhost:4780/');
    const prefs = win.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      partition: PREVIEW_PARTITION,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
    expect(prefs.preload).toBeUndefined();
    const answer = vi.fn();
    fake.session.partitions.get(PREVIEW_PARTITION)?.request?.({}, 'media', answer);
    expect(answer).toHaveBeenCalledWith(false);
    expect(fake.session.partitions.get(PREVIEW_PARTITION)?.check?.()).toBe(false);
  });

  it('stays on its preview origin and opens no window', () => {
    const win = openPreviewWindow('http://3000-a.ws.localhost:4780/') as unknown as InstanceType<
      typeof fake.BrowserWindow
    >;
    expect(win.webContents.openHandler?.({ url: 'http://3000-a.ws.localhost:4780/x' })).toEqual({ action: 'deny' });
    const nav = (to: string) => {
      const e = { preventDefault: vi.fn() };
      win.webContents.emit('will-navigate', e, to);
      return e.preventDefault.mock.calls.length === 0;
    };
    expect(nav('http://3000-a.ws.localhost:4780/next')).toBe(true);
    expect(nav('http://127.0.0.1:4780/')).toBe(false);
    expect(nav('http://3001-a.ws.localhost:4780/')).toBe(false);
    expect(nav('app://nexus/')).toBe(false);
    expect(nav('http://3000-a.ws.localhost:4780.evil.example/')).toBe(false);
  });
});
