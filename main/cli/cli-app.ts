import yargs, { type Argv } from 'yargs';
import { errorMessage, RemoteError } from '../../shared/errors';
import { version } from '../version';
import { attachCommand } from './attach-command';
import { dataDirOf, type CliContext } from './cli-context';
import { decideCommands } from './decide-command';
import { CliError, EXIT, UsageError } from './exit-codes';
import { lsCommand } from './ls-command';
import { mcpStdio } from './mcp-stdio';
import { newCommand } from './new-command';
import { rmCommand } from './rm-command';
import { rulesCommand } from './rules-command';
import { sendCommand } from './send-command';
import { serveCommand } from './serve-command';
import { serviceCommand } from './service-command';
import { statusCommand } from './status-command';
import { tokenCommand } from './token-command';
import { unlockCommand } from './unlock-command';
import { usageCommand } from './usage-command';

// One line per paragraph: yargs wraps them to the terminal.
const EPILOG = [
  'A session is named workspace/session (as nexus ls prints it) or by its id.',
  'Exit codes: 0 done; 1 failed (Nexus refused, or something broke: the reason is on stderr); ' +
    '2 usage error (the command line is wrong); 3 Nexus is not running on the data dir.',
  'Environment: NEXUS_DATA_DIR, NEXUS_PORT, NEXUS_DOCKER_SOCKET, NEXUS_DOCKER_NETWORK, NEXUS_WORKER_IMAGE, ' +
    'NEXUS_WORKER_BASE_IMAGE, NEXUS_NATS_URL, NEXUS_NATS_BINARY, NEXUS_VAULT_KEY_FILE, NEXUS_PUBLIC_ORIGIN; ' +
    'for mcp-stdio NEXUS_TOKEN.',
].join('\n\n');

/** The commands, for the `--help` hint of a usage error and `nexus help <command>`. */
const names = new Set([
  'serve',
  'mcp-stdio',
  'ls',
  'list',
  'new',
  'send',
  'attach',
  'rm',
  'allow',
  'deny',
  'status',
  'unlock',
  'token',
  'rules',
  'usage',
  'service',
  'help',
  'completion',
]);

/** Builds the `nexus` command line; `exit` sets the code a command ends with when it does not throw. */
export function nexusCli(ctx: CliContext, exit: (code: number) => void): Argv {
  const cli = yargs()
    .scriptName('nexus')
    .locale('en')
    .exitProcess(false)
    .wrap(Math.min(110, ctx.stdout.columns ?? 100))
    // A session named "007" stays "007"; a message stays as typed.
    .parserConfiguration({ 'parse-positional-numbers': false, 'duplicate-arguments-array': false })
    .usage('nexus — control plane for a fleet of coding-agent sessions\n\nUsage: $0 <command> [options]')
    .option('data-dir', {
      type: 'string',
      global: true,
      describe: 'the data dir of the Nexus to talk to (NEXUS_DATA_DIR)',
      defaultDescription: ctx.defaultDataDir,
    })
    .version(version)
    .help()
    .alias('h', 'help')
    .epilog(EPILOG)
    .fail((message: string | null, error: Error | undefined) => {
      // yargs' own usage errors come as a message; an error thrown here ends parseAsync.
      throw error instanceof CliError ? error : new UsageError(message ?? errorMessage(error));
    });

  const commands = [
    serveCommand(ctx, exit),
    (y: Argv) =>
      y.command(
        'mcp-stdio',
        "bridge stdio to the running app's MCP endpoint (for Claude Desktop); token from NEXUS_TOKEN, " +
          'the OS keychain, or the data dir without one',
        (b) => b.strict().option('url', { type: 'string', describe: "the app's URL (default: from serve.json)" }),
        (argv) =>
          mcpStdio({
            dataDir: dataDirOf(ctx, argv.dataDir as string | undefined),
            url: argv.url,
            env: ctx.env,
            err: ctx.stderr,
          }),
      ),
    lsCommand(ctx),
    newCommand(ctx),
    sendCommand(ctx, exit),
    attachCommand(ctx, exit),
    rmCommand(ctx),
    decideCommands(ctx),
    (y: Argv) =>
      y.command(
        'status',
        "the running app's URL, vault state and what needs you; exit 3 when not running",
        (b) => b.strict().option('login', { type: 'boolean', describe: 'also print the sign-in URL with its token' }),
        async (argv) => {
          const args = [
            ...(argv.dataDir ? ['--data-dir', String(argv.dataDir)] : []),
            ...(argv.login ? ['--login'] : []),
          ];
          exit(await statusCommand(args, { defaultDataDir: ctx.defaultDataDir, out: ctx.stdout }));
        },
      ),
    unlockCommand(ctx),
    tokenCommand(ctx),
    usageCommand(ctx),
    rulesCommand(ctx),
    (y: Argv) =>
      y.command('service', 'run nexus serve as a systemd user service (Linux; macOS: prints a launchd agent)', (s) =>
        s
          .command(
            'install',
            'write the unit (FILE unseals the vault at every start)',
            (b) =>
              b
                .strict()
                .option('port', { type: 'string', describe: `port (default ${ctx.defaultPort})` })
                .option('vault-key-file', { type: 'string', describe: "the vault's key file, handed over by systemd" })
                .option('print', { type: 'boolean', describe: 'print the unit instead of writing it' }),
            async (argv) => {
              const args = ['install'];
              if (argv.port !== undefined) args.push('--port', argv.port);
              if (argv.dataDir !== undefined) args.push('--data-dir', String(argv.dataDir));
              if (argv.vaultKeyFile !== undefined) args.push('--vault-key-file', argv.vaultKeyFile);
              if (argv.print) args.push('--print');
              exit(await serviceCommand(args, { ...ctx, out: ctx.stdout, err: ctx.stderr }));
            },
          )
          .command(
            'uninstall',
            'stop the service and remove its unit',
            (b) => b.strict(),
            async () => exit(await serviceCommand(['uninstall'], { ...ctx, out: ctx.stdout, err: ctx.stderr })),
          )
          .demandCommand(1, 'Name a service command: install or uninstall.'),
      ),
    (y: Argv) =>
      y.command(
        'help [command]',
        'this help, or a command’s (as nexus <command> --help)',
        (b) => b.strict().positional('command', { type: 'string' }),
        async (argv) => {
          if (argv.command && !names.has(argv.command)) throw new UsageError(`Unknown command "${argv.command}".`);
          if (argv.command) await runCli([argv.command, '--help'], ctx);
          else cli.showHelp((text) => void ctx.stdout.write(`${text}\n`));
        },
      ),
  ];
  for (const add of commands) add(cli);
  return cli.completion('completion', 'print a bash/zsh completion script: nexus completion >> ~/.bashrc');
}

/** The first word that is not an option (nor `--data-dir`'s value): the command, if any. */
const firstWord = (argv: string[]): string | undefined =>
  argv.find((a, i) => !a.startsWith('-') && argv[i - 1] !== '--data-dir');

/** Runs one command line; resolves with the exit code (KEEP_RUNNING for serve). Errors are said on stderr in one line. */
export async function runCli(argv: string[], ctx: CliContext): Promise<number> {
  let code: number = EXIT.ok;
  try {
    const cli = nexusCli(ctx, (c) => (code = c));
    const completing = argv.includes('--get-yargs-completions');
    const command = completing ? 'completion' : firstWord(argv);
    // yargs' strict command check would take a message's words for commands: the command is checked here.
    if (command !== undefined && !names.has(command)) throw new UsageError(`Unknown command "${command}".`);
    if (command === undefined && !argv.some((a) => /^(-h|--help|--version)$/.test(a))) {
      cli.showHelp((text) => void ctx.stdout.write(`${text}\n`));
      return EXIT.ok;
    }
    // yargs' own output (help, version, completion) comes here rather than to the console.
    await cli.parseAsync(argv, {}, (_error, _argv, output) => {
      if (output) ctx.stdout.write(`${output}\n`);
    });
    return code;
  } catch (e) {
    const message = e instanceof RemoteError ? `${e.message} (${e.code})` : errorMessage(e);
    const command = firstWord(argv);
    const hint =
      e instanceof UsageError ? ` (see: nexus ${command && names.has(command) ? `${command} ` : ''}--help)` : '';
    ctx.stderr.write(`nexus: ${message.trim().replace(/\s*\n\s*/g, ' ')}${hint}\n`);
    return e instanceof CliError ? e.exitCode : EXIT.failed;
  }
}
