import { errorMessage } from '../../shared/errors';
import { app } from 'electron';
import { resolve } from 'node:path';
import { mcpStdio } from '../cli/mcp-stdio';

/**
 * `<Nexus Desktop> mcp-stdio [--data-dir DIR]`: Claude Desktop starts the app binary itself as its
 * stdio MCP server (the RunAsNode fuse is off, so no ELECTRON_RUN_AS_NODE and no separate Node).
 * In that mode the process only relays to the running app's /api/mcp and exits: no window, no
 * single-instance lock. Returns false when the arguments ask for the normal app.
 */
export function runIfStdioBridge(argv = process.argv): boolean {
  const at = argv.indexOf('mcp-stdio');
  if (at < 0) return false;
  const rest = argv.slice(at + 1);
  const dirAt = rest.indexOf('--data-dir');
  const dataDir = dirAt >= 0 && rest[dirAt + 1] ? resolve(rest[dirAt + 1] ?? '') : app.getPath('userData');
  app.dock?.hide();
  mcpStdio({ dataDir, env: process.env, err: process.stderr }).then(
    () => app.exit(0),
    (e: unknown) => {
      process.stderr.write(`nexus mcp-stdio: ${errorMessage(e)}\n`);
      app.exit(1);
    },
  );
  return true;
}

/** How Claude Desktop starts the bridge: the app binary (plus the app path when unpackaged). */
export const electronStdioLauncher = (): { command: string; args: string[] } => ({
  command: process.execPath,
  args: app.isPackaged ? [] : [app.getAppPath()],
});
