import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../test/fakes/electron'));
const fake = await import('../../test/fakes/electron');
const { createMainWindow, denyAllPermissions } = await import('./window');
const { openExternalLink } = await import('./external-links');

describe('secure window factory', () => {
  let remotes: () => Promise<string[]> = () => Promise.resolve(['git.example.org']);
  let handedOver: Promise<unknown> = Promise.resolve();
  const win = createMainWindow(
    '/app/preload.cjs',
    (url) => (handedOver = openExternalLink(url, () => remotes())),
  ) as unknown as InstanceType<typeof fake.BrowserWindow>;
  /** Asks the window to open `url` as a new window; resolves with its answer and what went to the browser. */
  const open = async (url: string): Promise<{ action: string; browser: string[] }> => {
    fake.shell.opened.length = 0;
    const answer = win.webContents.openHandler?.({ url }) ?? { action: 'none' };
    await handedOver;
    return { action: answer.action, browser: [...fake.shell.opened] };
  };
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

  it("hands a provider's or a workspace remote's https link to the system browser, never to a new window", async () => {
    const compare = 'https://github.com/acme/app/compare/main...nexus/fix?expand=1';
    expect(await open(compare)).toEqual({ action: 'deny', browser: [compare] });
    const mr = 'https://gitlab.com/group/sub/app/-/merge_requests/new?merge_request%5Bsource_branch%5D=nexus%2Ffix';
    expect(await open(mr)).toEqual({ action: 'deny', browser: [mr] });
    const selfHosted = 'https://git.example.org/acme/app/-/merge_requests/new';
    expect(await open(selfHosted)).toEqual({ action: 'deny', browser: [selfHosted] });
  });

  it('opens nothing else: other hosts, http, credentials in the URL, other schemes, look-alike hosts', async () => {
    for (const url of [
      'https://evil.example/acme/app',
      'http://github.com/acme/app/compare/main...x',
      'https://user:pass@github.com/acme/app',
      'https://github.com.evil.example/acme/app',
      'https://github.com:8443/acme/app',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'app://nexus/#/settings',
      'not a url',
    ])
      expect(await open(url), url).toEqual({ action: 'deny', browser: [] });
  });

  it("opens only the providers' links when the workspaces' remotes cannot be read", async () => {
    remotes = () => Promise.reject(new Error('core not ready'));
    expect(await open('https://git.example.org/acme/app')).toEqual({ action: 'deny', browser: [] });
    expect(await open('https://github.com/acme/app')).toEqual({
      action: 'deny',
      browser: ['https://github.com/acme/app'],
    });
  });

  it('denies every permission request and check', () => {
    denyAllPermissions();
    const answer = vi.fn();
    fake.fakePermissionHandlers.request?.({}, 'media', answer);
    expect(answer).toHaveBeenCalledWith(false);
    expect(fake.fakePermissionHandlers.check?.()).toBe(false);
  });
});
