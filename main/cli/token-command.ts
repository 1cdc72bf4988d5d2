import type { Argv } from 'yargs';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, TokenClass, type TokenInfo } from '../../shared/contract';
import { dataDirOf, type CliContext } from './cli-context';
import { UsageError } from './exit-codes';
import { operatorCall } from './running-app';

/** `30d`, `30` (days) or a date (`2027-01-31`) → whole days from now. */
export function parseExpiry(value: string | undefined, now = new Date()): number {
  if (value === undefined) return DEFAULT_TOKEN_DAYS;
  const days = /^(\d+)d?$/.exec(value);
  const n = days ? Number(days[1]) : Math.ceil((Date.parse(value) - now.getTime()) / 86_400_000);
  if (!Number.isInteger(n) || n < 1 || n > MAX_TOKEN_DAYS) {
    throw new UsageError(
      `--expires must be 1..${MAX_TOKEN_DAYS} days ("30d") or a future date within that range, got "${value}".`,
    );
  }
  return n;
}

const row = (t: TokenInfo): string =>
  [
    t.id,
    t.class.padEnd(5),
    t.state.padEnd(7),
    t.hint,
    `expires ${t.expiresAt.slice(0, 10)}`,
    `last used ${t.lastUsedAt ?? 'never'}`,
    JSON.stringify(t.name),
  ].join('  ');

/**
 * `nexus token create|list|revoke`: MCP tokens, through the running app (or on the data dir
 * directly when none runs). The secret alone goes to stdout, once.
 */
export const tokenCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command('token', 'MCP tokens: create, list, revoke', (token) =>
    token
      .command(
        'create',
        'create an MCP token; the secret is printed once, on stdout',
        (y) =>
          y
            .strict()
            .option('class', { type: 'string', describe: 'read, write or vault', demandOption: true })
            .option('name', { type: 'string', describe: 'who holds it, e.g. "Claude Desktop"', demandOption: true })
            .option('expires', { type: 'string', describe: `30d (default ${DEFAULT_TOKEN_DAYS}d) or YYYY-MM-DD` }),
        async (argv) => {
          const cls = TokenClass.safeParse(argv.class);
          if (!cls.success) throw new UsageError('--class must be read, write or vault.');
          const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
          const { token, secret } = await operatorCall(dataDir, ctx.appRoot, 'tokens.create', {
            name: argv.name,
            class: cls.data,
            expiresInDays: parseExpiry(argv.expires),
          });
          ctx.stderr.write(
            `Created ${token.class} token ${token.id} (${JSON.stringify(token.name)}), expires ${token.expiresAt}.\n` +
              'Copy it now: it is shown this once.\n',
          );
          ctx.stdout.write(`${secret}\n`);
        },
      )
      .command(
        'list',
        'list MCP tokens (class, state, expiry, last use)',
        (y) =>
          y.strict().option('json', { type: 'boolean', describe: 'print the tokens as JSON (never their secrets)' }),
        async (argv) => {
          const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
          const { tokens } = await operatorCall(dataDir, ctx.appRoot, 'tokens.list', {});
          if (argv.json) ctx.stdout.write(`${JSON.stringify({ tokens }, null, 2)}\n`);
          else ctx.stdout.write(tokens.length ? `${tokens.map(row).join('\n')}\n` : 'No tokens.\n');
        },
      )
      .command(
        'revoke <id>',
        'revoke an MCP token at once',
        (y) => y.strict().positional('id', { type: 'string', describe: 'the token id (tok_…)', demandOption: true }),
        async (argv) => {
          const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
          const token = await operatorCall(dataDir, ctx.appRoot, 'tokens.revoke', { id: argv.id });
          ctx.stdout.write(`Revoked ${token.id} (${JSON.stringify(token.name)}).\n`);
        },
      )
      .demandCommand(1, 'Name a token command: create, list or revoke.'),
  );
