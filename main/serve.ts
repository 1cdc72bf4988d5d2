import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCore, type Core } from './core';
import type { CoreConfigInput } from './core/config';
import { startHost, type Host } from './host/server';
import { nodePorts } from './host/node-ports';
import { createMcpGate, MCP_PATH } from './core/mcp/gate';

export interface ServeOptions {
  dataDir: string;
  appRoot: string;
  port: number;
  config?: CoreConfigInput;
  token?: string;
}

export interface Running {
  core: Core;
  host: Host;
  stop(): Promise<void>;
}

/** Starts the headless control plane: core + loopback host, and writes serve.json for tools. */
export async function serve(opts: ServeOptions): Promise<Running> {
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const stdioLauncher = { command: process.execPath, args: [join(opts.appRoot, 'dist', 'cli.js')] };
  const core = await createCore({ logToStderr: false, ...opts.config, mcp: { stdioLauncher, ...opts.config?.mcp } }, nodePorts(opts.dataDir, opts.appRoot));
  let host: Host;
  try {
    const mounts = [{ path: MCP_PATH, handle: createMcpGate(core) }];
    host = await startHost(core, { port: opts.port, rendererDir: join(opts.appRoot, 'dist', 'renderer'), token: opts.token, mounts });
    core.connect.setHostUrl(host.url);
  } catch (e) {
    await core.dispose();
    throw e;
  }
  const serveFile = join(opts.dataDir, 'serve.json');
  writeFileSync(serveFile, JSON.stringify({ url: host.url, port: host.port, token: host.token, pid: process.pid }, null, 2), { mode: 0o600 });
  let stopped = false;
  return {
    core,
    host,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      rmSync(serveFile, { force: true });
      await host.close();
      await core.dispose();
    },
  };
}
