import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { TokenClass } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { CoreSecret, SecretFallback } from '../vault';

/**
 * Where `nexus mcp-stdio` finds its token when NEXUS_TOKEN is not set: the OS keychain, under an
 * account tied to the data directory (so two Nexus installs keep two tokens).
 */
export const STDIO_KEYCHAIN_SERVICE = 'Nexus Desktop MCP';
export const stdioKeychainAccount = (dataDir: string): string =>
  `mcp-stdio:${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}`;

/**
 * Without a keychain: a 0600 file in the data dir, beside serve.json (which holds the operator's
 * own, stronger credential at 0600). The bridge runs without the app's vault key, so it could not
 * open a value sealed in the vault; see docs/vault.md.
 */
export const STDIO_TOKEN_FILE = 'mcp-stdio.token';
const Token = z.string().regex(/^nxs_[rw]_[A-Za-z0-9_-]{43}$/);
export const NO_VAULT_TOKEN_ON_DISK =
  "Without an OS keychain, Claude Desktop's token is kept in a file in the data dir, and a vault-class " +
  'token there would open the vault from a copy of that directory. Choose read or write, or give ' +
  'Claude Desktop a token in NEXUS_TOKEN yourself.';

/** The data-dir file; `cls` is the class about to be kept (a vault-class token is never filed). */
export function stdioTokenFile(dataDir: string, cls?: TokenClass): SecretFallback {
  const file = join(dataDir, STDIO_TOKEN_FILE);
  return {
    read: () => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return null;
      }
      const token = Token.safeParse(text.trim());
      return token.success ? token.data : null;
    },
    write: (secret) => {
      if (!Token.safeParse(secret).success) throw new NexusError('unavailable', NO_VAULT_TOKEN_ON_DISK);
      // Written whole then renamed (a bridge starting meanwhile never reads half a token); 0600 from the start.
      const tmp = `${file}.tmp`;
      rmSync(tmp, { force: true });
      writeFileSync(tmp, `${secret}\n`, { mode: 0o600 });
      renameSync(tmp, file);
    },
    remove: () => rmSync(file, { force: true }),
    ready: () => {
      if (cls === 'vault') throw new NexusError('unavailable', NO_VAULT_TOKEN_ON_DISK);
    },
  };
}

/** Claude Desktop's token (of class `cls`, when about to be kept) as a core secret: the keychain, else the file above. */
export const stdioSecret = (dataDir: string, cls?: TokenClass): CoreSecret => ({
  service: STDIO_KEYCHAIN_SERVICE,
  account: stdioKeychainAccount(dataDir),
  fallback: stdioTokenFile(dataDir, cls),
});
