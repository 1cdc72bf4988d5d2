import { app, net, protocol, type BrowserWindow } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCore, type CoreApi } from '../core';
import { operatorContext } from '../core/handlers';
import { parseRemote } from '../core/ship';
import { startLoopback, type Loopback } from '../serve';
import { electronStdioLauncher, runIfStdioBridge } from './stdio-bridge';
import { version } from '../version';
import { appResponseHeaders, resolveAppFile } from './app-protocol';
import { openExternalLink } from './external-links';
import { registerIpc } from './ipc';
import { registerTerminalIpc } from './terminal-ipc';
import { routeFor } from './navigation';
import { electronPorts } from './ports';
import { startTray } from './tray';
import { createMainWindow, denyAllPermissions } from './window';
import { openPreviewWindow, previewUrl } from './preview-window';

// The thin shell: lifecycle, one secure window, the app:// protocol, IPC. Everything else is core.
protocol.registerSchemesAsPrivileged([
  { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

const distDir = join(__dirname, '..');
let win: BrowserWindow | null = null;
let core: CoreApi | null = null;
let tray: { dispose(): void | Promise<void> } | null = null;
let loopback: Loopback | null = null;

/** The hosts of the workspaces' remotes: a compare link to a self-hosted GitHub or GitLab opens too. */
async function remoteHosts(): Promise<string[]> {
  if (!core) return [];
  const { workspaces } = await core.dispatcher.call('workspaces.list', {}, operatorContext('ipc'));
  return workspaces.flatMap((w) => parseRemote(w.repoUrl)?.host ?? []);
}

function focusWindow(target?: string): void {
  if (!win) {
    win = createMainWindow(join(distDir, 'preload', 'index.cjs'), (url) => {
      // A session's preview opens in a window of its own (docs/previews.md); any other link may go to the browser.
      const preview = previewUrl(url, loopback?.host.port ?? null);
      if (preview) return Promise.resolve(openPreviewWindow(preview));
      return openExternalLink(url, remoteHosts);
    });
    win.on('closed', () => (win = null));
  }
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
  const route = routeFor(target);
  // The route is built from a validated id only, so this cannot inject script.
  if (route) void win.webContents.executeJavaScript(`window.location.hash = ${JSON.stringify(route)}`);
}

// `<app> mcp-stdio` relays for Claude Desktop and exits; it is not a second window.
const bridging = runIfStdioBridge();
if (!bridging && !app.requestSingleInstanceLock()) app.quit();

app.on('second-instance', () => focusWindow());
app.on('web-contents-created', (_e, contents) => contents.setWindowOpenHandler(() => ({ action: 'deny' })));

void app.whenReady().then(async () => {
  if (bridging) return;
  denyAllPermissions();
  const rendererRoot = join(distDir, 'renderer');
  protocol.handle('app', async (request) => {
    const file = resolveAppFile(rendererRoot, request.url);
    if (!file) return new Response('Not found', { status: 404 });
    const res = await net.fetch(pathToFileURL(file).toString());
    return new Response(res.body, { status: 200, headers: appResponseHeaders(file) });
  });
  // Claude Desktop starts this binary with `mcp-stdio` (no separate Node install).
  const ports = electronPorts((target) => focusWindow(target));
  core = await createCore({ version, mcp: { stdioLauncher: electronStdioLauncher() } }, ports);
  loopback = await startLoopback(core, ports.host, {
    port: Number(process.env.NEXUS_PORT ?? 4780),
    rendererDir: rendererRoot,
  }).catch((e: unknown) => {
    core?.log.warn('MCP endpoint not started (is the port taken by `nexus serve`?)', { error: e });
    return null;
  });
  registerIpc(core, () => win?.webContents ?? null);
  registerTerminalIpc(core);
  const trayIcon = join(
    app.getAppPath(),
    'resources',
    'tray',
    process.platform === 'darwin' ? 'trayTemplate.png' : 'tray-light.png',
  );
  tray = startTray(
    core.events,
    trayIcon,
    {
      open: () => focusWindow(),
      openSession: (id) => focusWindow(`session:${id}`),
      quit: () => app.quit(),
    },
    await core.attention.get(),
    core.status.get(),
  );
  focusWindow();
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
app.on('activate', () => focusWindow());
app.on('will-quit', (event) => {
  if (!core) return;
  event.preventDefault();
  const c = core;
  core = null;
  void tray?.dispose();
  void Promise.resolve(loopback?.close())
    .finally(() => c.dispose())
    .finally(() => app.quit());
});
