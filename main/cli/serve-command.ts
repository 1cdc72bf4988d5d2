import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { configFromEnv } from '../env-config';
import { serve } from '../serve';
import { version } from '../version';
import { dataDirOf, type CliContext } from './cli-context';
import { UsageError } from './exit-codes';

/** The exit code that means "keep running": `nexus serve` ends on SIGINT/SIGTERM, not when its handler returns. */
export const KEEP_RUNNING = -1;

export const serveCommand = (ctx: CliContext, exit: (code: number) => void) => (cli: Argv) =>
  cli.command(
    'serve',
    'start the headless control plane (UI, API, MCP) on loopback',
    (y) =>
      y
        .strict()
        .option('port', { type: 'string', describe: `port to listen on (NEXUS_PORT; default ${ctx.defaultPort})` })
        .option('vault-key-file', { type: 'string', describe: "the vault's key file, for an unattended start" })
        .option('public-origin', {
          type: 'string',
          describe: 'https://NAME a tunnel forwards here: OAuth + /api/mcp only there (docs/remote.md)',
        }),
    async (argv) => {
      const given = argv.port ?? ctx.env.NEXUS_PORT;
      const port = Number(given ?? ctx.defaultPort);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0..65535, got ${given}`);
      const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
      const keyFile = argv.vaultKeyFile ? { vault: { keyFile: resolve(argv.vaultKeyFile) } } : {};
      const publicOrigin = argv.publicOrigin ?? ctx.env.NEXUS_PUBLIC_ORIGIN;
      const config = { ...configFromEnv(ctx.env), ...keyFile, version };
      const running = await serve({ dataDir, appRoot: ctx.appRoot, port, config, publicOrigin });
      ctx.stdout.write(`Nexus ${version} is running.\n  Open: ${running.host.loginUrl}\n  Data: ${dataDir}\n`);
      const shutdown = (): void => {
        running.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
      exit(KEEP_RUNNING);
    },
  );
