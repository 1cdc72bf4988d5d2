import { closeSync, existsSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The systemd credential name (`LoadCredential=nexus-vault-key:/path/to/file`) Nexus looks for. */
export const KEY_FILE_CREDENTIAL = 'nexus-vault-key';
const MIN_BYTES = 32;
const MAX_BYTES = 64 * 1024;

export type KeyFileRead = { kind: 'ok'; bytes: Buffer } | { kind: 'refused'; reason: string };

/**
 * The key file Nexus is started with, if any: NEXUS_VAULT_KEY_FILE, else the systemd credential
 * `$CREDENTIALS_DIRECTORY/nexus-vault-key` when the service manager passed one (`--vault-key-file`
 * on `nexus serve` overrides both).
 */
export function keyFileFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NEXUS_VAULT_KEY_FILE) return resolve(env.NEXUS_VAULT_KEY_FILE);
  if (env.CREDENTIALS_DIRECTORY) {
    const credential = join(env.CREDENTIALS_DIRECTORY, KEY_FILE_CREDENTIAL);
    if (existsSync(credential)) return credential;
  }
  return undefined;
}

/**
 * Reads a vault key file, refusing it (with the reason and the fix) unless it is a regular file
 * owned by the user Nexus runs as, readable by nobody else (0600 or 0400), holding 32+ bytes.
 * The checks run on the opened descriptor, so the file cannot be swapped between check and read.
 */
export function readKeyFile(path: string): KeyFileRead {
  const refused = (why: string): KeyFileRead => ({ kind: 'refused', reason: `The vault key file ${path} ${why}` });
  const uid = process.getuid?.();
  if (uid === undefined) return refused('cannot be used: key files are supported on Linux and macOS only.');
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    return refused(`cannot be opened (${code}).`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return refused('is not a regular file.');
    if (st.uid !== uid)
      return refused(`is owned by uid ${st.uid}, not by the user Nexus runs as (uid ${uid}); refusing it. chown it.`);
    const mode = st.mode & 0o777;
    if ((mode & 0o077) !== 0)
      return refused(
        `has mode 0${mode.toString(8)} (others can read it); refusing it. Run: chmod 600 ${JSON.stringify(path)}`,
      );
    if (st.size > MAX_BYTES) return refused(`is larger than ${MAX_BYTES} bytes; it should hold a random key.`);
    const bytes = readFileSync(fd);
    if (bytes.length < MIN_BYTES) {
      bytes.fill(0);
      return refused(
        `holds ${bytes.length} bytes; it needs at least ${MIN_BYTES} random bytes (head -c 32 /dev/urandom).`,
      );
    }
    return { kind: 'ok', bytes };
  } finally {
    closeSync(fd);
  }
}
