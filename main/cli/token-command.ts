import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, TokenClass, type TokenInfo } from '../../shared/contract';
import { CliError, operatorCall } from './running-app';

export const TOKEN_USAGE = `  nexus token create --class read|write|vault --name NAME [--expires 30d|YYYY-MM-DD]
                                            create an MCP token; the secret is printed once, on stdout
  nexus token list                          list MCP tokens (class, state, expiry, last use)
  nexus token revoke ID                     revoke an MCP token at once`;

/** `30d`, `30` (days) or a date (`2027-01-31`) → whole days from now. */
export function parseExpiry(value: string | undefined, now = new Date()): number {
  if (value === undefined) return DEFAULT_TOKEN_DAYS;
  const days = /^(\d+)d?$/.exec(value);
  const n = days ? Number(days[1]) : Math.ceil((Date.parse(value) - now.getTime()) / 86_400_000);
  if (!Number.isInteger(n) || n < 1 || n > MAX_TOKEN_DAYS) {
    throw new CliError(
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

export async function tokenCommand(
  args: string[],
  ctx: { defaultDataDir: string; appRoot: string; out: NodeJS.WritableStream; err: NodeJS.WritableStream },
): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      class: { type: 'string' },
      name: { type: 'string' },
      expires: { type: 'string' },
      'data-dir': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const dataDir = values['data-dir'] ? resolve(values['data-dir']) : ctx.defaultDataDir;
  switch (sub) {
    case 'create': {
      const cls = TokenClass.safeParse(values.class);
      if (!cls.success) throw new CliError('--class must be read, write or vault.');
      if (!values.name) throw new CliError('--name is required (who holds the token, e.g. "Claude Desktop").');
      const { token, secret } = await operatorCall(dataDir, ctx.appRoot, 'tokens.create', {
        name: values.name,
        class: cls.data,
        expiresInDays: parseExpiry(values.expires),
      });
      ctx.err.write(
        `Created ${token.class} token ${token.id} (${JSON.stringify(token.name)}), expires ${token.expiresAt}.\n` +
          'Copy it now: it is shown this once.\n',
      );
      ctx.out.write(`${secret}\n`);
      return 0;
    }
    case 'list': {
      const { tokens } = await operatorCall(dataDir, ctx.appRoot, 'tokens.list', {});
      ctx.out.write(tokens.length ? `${tokens.map(row).join('\n')}\n` : 'No tokens.\n');
      return 0;
    }
    case 'revoke': {
      const id = positionals[0];
      if (!id) throw new CliError('Usage: nexus token revoke ID');
      const token = await operatorCall(dataDir, ctx.appRoot, 'tokens.revoke', { id });
      ctx.out.write(`Revoked ${token.id} (${JSON.stringify(token.name)}).\n`);
      return 0;
    }
    default:
      throw new CliError(`Usage:\n${TOKEN_USAGE}`);
  }
}
