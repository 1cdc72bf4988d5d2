import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCore, type Core, type CoreApi } from './core';
import type { CoreConfigInput } from './core/config';
import { startHost, type Host } from './host/server';
import { nodePorts, type ListeningAddress } from './host/node-ports';
import { MCP_PATH } from './core/mcp';
import { startDelegationListener } from './host/delegation-listener';
import { createPublicFront } from './host/public-origin';
import { createPhoneFront } from './core/phone';
import { loadStaticFiles } from './host/static-files';

export interface ServeOptions {
  dataDir: string;
  appRoot: string;
  port: number;
  config?: CoreConfigInput;
  token?: string;
  /** Public origin mode (docs/remote.md): `--public-origin` / NEXUS_PUBLIC_ORIGIN; pinned over the setting. */
  publicOrigin?: string;
}

export interface Running {
  /** The core this serve built and owns (tests drive its services; the shell uses it as a `CoreApi`). */
  core: Core;
  host: Host;
  stop(): Promise<void>;
}

/** Starts the headless control plane: core + loopback host, and writes serve.json for tools. */
export async function serve(opts: ServeOptions): Promise<Running> {
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const stdioLauncher = { command: process.execPath, args: [join(opts.appRoot, 'dist', 'cli.js')] };
  const ports = nodePorts(opts.dataDir, opts.appRoot);
  const core = await createCore(
    { logToStderr: false, ...opts.config, mcp: { stdioLauncher, ...opts.config?.mcp } },
    ports,
  );
  let loopback: Loopback;
  try {
    core.remote.pin(opts.publicOrigin);
    loopback = await startLoopback(core, ports.host, {
      port: opts.port,
      rendererDir: join(opts.appRoot, 'dist', 'renderer'),
      token: opts.token,
    });
  } catch (e) {
    await core.dispose();
    throw e;
  }
  let stopped = false;
  return {
    core,
    host: loopback.host,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await loopback.close();
      await core.dispose();
    },
  };
}

export interface Loopback {
  host: Host;
  close(): Promise<void>;
}

/**
 * The loopback host for a running core: UI, /api/rpc, /api/events and the MCP endpoint at
 * /api/mcp, and beside it the worker-facing MCP listener on the workers' bridge gateway
 * (host/delegation-listener.ts, port `mcp.delegationPort`); fills in `address`, core's host port (so
 * Settings → Connect knows the URL), and writes `<dataDir>/serve.json` (0600), which
 * `nexus mcp-stdio` and `nexus token` use to find the app. Used by `nexus serve` and by the
 * Electron shell (which serves MCP on the same port for Claude Desktop).
 */
export async function startLoopback(
  core: CoreApi,
  address: ListeningAddress,
  opts: { port: number; rendererDir: string; token?: string },
): Promise<Loopback> {
  const mounts = [{ path: MCP_PATH, handle: core.mcpGate() }];
  const phone = createPhoneFront({
    phone: core.phone,
    dispatcher: core.dispatcher,
    assets: loadStaticFiles(opts.rendererDir),
  });
  const publicFront = createPublicFront(core.remote, core.mcpGate({ remote: core.remote }), undefined, phone);
  const host = await startHost(core, {
    port: opts.port,
    rendererDir: opts.rendererDir,
    token: opts.token,
    mounts,
    publicFront,
  });
  address.listening(host.url);
  const serveFile = join(core.ports.paths.dataDir, 'serve.json');
  // Written whole then renamed, so a tool never reads a half-written file.
  writeFileSync(
    `${serveFile}.tmp`,
    JSON.stringify({ url: host.url, port: host.port, token: host.token, pid: process.pid }, null, 2),
    { mode: 0o600 },
  );
  renameSync(`${serveFile}.tmp`, serveFile);
  const delegation = await startDelegationListener(core, { port: core.config.mcp.delegationPort });
  return {
    host,
    close: async () => {
      rmSync(serveFile, { force: true });
      await delegation.close();
      await host.close();
    },
  };
}
