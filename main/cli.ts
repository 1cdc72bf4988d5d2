#!/usr/bin/env node
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { configFromEnv } from './env-config';
import { serve } from './serve';
import { errorMessage, RemoteError } from '../shared/errors';
import { mcpStdio } from './cli/mcp-stdio';
import { TOKEN_USAGE, tokenCommand } from './cli/token-command';
import { UNLOCK_USAGE, unlockCommand } from './cli/unlock-command';
import { SERVICE_USAGE, serviceCommand } from './cli/service-command';
import { STATUS_USAGE, statusCommand } from './cli/status-command';
import { version } from './version';

const USAGE = `nexus — control plane for a fleet of coding-agent sessions

Usage:
  nexus serve [--port N] [--data-dir DIR] [--vault-key-file FILE] [--public-origin https://NAME]
                                            start the headless control plane (UI, API, MCP); a public origin
                                            also answers a tunnel's public name: OAuth + /api/mcp only (docs/remote.md)
  nexus mcp-stdio [--data-dir DIR]          bridge stdio to the running app's MCP endpoint (for Claude Desktop);
                                            the token comes from NEXUS_TOKEN or the OS keychain
${TOKEN_USAGE}
${UNLOCK_USAGE}
${STATUS_USAGE}
${SERVICE_USAGE}
  nexus help

Environment: NEXUS_DATA_DIR, NEXUS_PORT, NEXUS_DOCKER_SOCKET, NEXUS_DOCKER_NETWORK,
NEXUS_WORKER_IMAGE, NEXUS_WORKER_BASE_IMAGE, NEXUS_NATS_URL, NEXUS_NATS_BINARY, NEXUS_VAULT_KEY_FILE,
NEXUS_PUBLIC_ORIGIN.`;

export const DEFAULT_PORT = 4780;

export function defaultDataDir(env = process.env): string {
  if (env.NEXUS_DATA_DIR) return resolve(env.NEXUS_DATA_DIR);
  const base = env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share');
  return join(base, 'nexus-desktop');
}

/** The repository (or unpacked app) root: dist/cli.js and main/cli.ts both sit one level below it. */
const appRoot = fileURLToPath(new URL('..', import.meta.url));

async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({
        args: rest,
        options: {
          port: { type: 'string' },
          'data-dir': { type: 'string' },
          'vault-key-file': { type: 'string' },
          'public-origin': { type: 'string' },
        },
        strict: true,
      });
      const port = Number(values.port ?? process.env.NEXUS_PORT ?? DEFAULT_PORT);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new Error(`--port must be 0..65535, got ${values.port}`);
      const dataDir = values['data-dir'] ? resolve(values['data-dir']) : defaultDataDir();
      const keyFile = values['vault-key-file'] ? { vault: { keyFile: resolve(values['vault-key-file']) } } : {};
      const publicOrigin = values['public-origin'] ?? process.env.NEXUS_PUBLIC_ORIGIN;
      const config = { ...configFromEnv(process.env), ...keyFile, version };
      const running = await serve({ dataDir, appRoot, port, config, publicOrigin });
      process.stdout.write(`Nexus ${version} is running.\n  Open: ${running.host.loginUrl}\n  Data: ${dataDir}\n`);
      const shutdown = (): void => {
        running.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
      return -1;
    }
    case 'token': {
      return tokenCommand(rest, {
        defaultDataDir: defaultDataDir(),
        appRoot,
        out: process.stdout,
        err: process.stderr,
      });
    }
    case 'unlock':
      return unlockCommand(rest, {
        defaultDataDir: defaultDataDir(),
        appRoot,
        input: process.stdin,
        out: process.stdout,
        err: process.stderr,
      });
    case 'status':
      return statusCommand(rest, { defaultDataDir: defaultDataDir(), out: process.stdout });
    case 'service':
      return serviceCommand(rest, {
        appRoot,
        defaultDataDir: defaultDataDir(),
        defaultPort: DEFAULT_PORT,
        home: homedir(),
        platform: process.platform,
        node: process.execPath,
        nodeVersion: process.version,
        env: process.env,
        uid: process.getuid?.() ?? -1,
        out: process.stdout,
        err: process.stderr,
      });
    case 'mcp-stdio': {
      const { values } = parseArgs({
        args: rest,
        options: { 'data-dir': { type: 'string' }, url: { type: 'string' } },
        strict: true,
      });
      await mcpStdio({
        dataDir: values['data-dir'] ? resolve(values['data-dir']) : defaultDataDir(),
        url: values.url,
        env: process.env,
        err: process.stderr,
      });
      return 0;
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    const message = e instanceof RemoteError ? `${e.message} (${e.code})` : errorMessage(e);
    process.stderr.write(`nexus: ${message}\n`);
    process.exit(1);
  },
);
