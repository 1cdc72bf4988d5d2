import { BrowserWindow, session } from 'electron';
import { parsePreviewHost } from '../core/previews';

/** The in-memory partition every preview window shares: never the app's session, so nothing of Nexus is there. */
export const PREVIEW_PARTITION = 'previews';

/** The preview origin a link names on this app's loopback port (`http://<port>-<session>.<ws>.localhost:<port>/…`), or null. */
export function previewUrl(raw: string, nexusPort: number | null): string | null {
  if (nexusPort === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || url.username || url.password) return null;
  return parsePreviewHost(url.host, nexusPort) ? url.href : null;
}

/**
 * A window on one preview: the session's app, untrusted. Sandboxed, no preload and no Node, in its own
 * partition, no permission granted; it stays on its preview origin (a link elsewhere is not followed) and
 * opens no window.
 */
export function openPreviewWindow(url: string): BrowserWindow {
  const origin = new URL(url).origin;
  const partition = session.fromPartition(PREVIEW_PARTITION);
  partition.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  partition.setPermissionCheckHandler(() => false);
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    title: `Preview — ${new URL(url).hostname}`,
    webPreferences: {
      partition: PREVIEW_PARTITION,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  });
  const contents = win.webContents;
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, to) => {
    if (!to.startsWith(`${origin}/`) && to !== origin) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  void win.loadURL(url);
  return win;
}
