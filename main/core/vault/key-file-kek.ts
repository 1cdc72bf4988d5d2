import { NexusError } from '../../../shared/errors';
import { unwrapFor, type Dek } from './dek';
import { readKeyFile } from './key-file';
import { keyFileKek, newKeyFileParams, type KekParams } from './principal-keys';
import type { PrincipalRow } from './vault-store';
import { noKeyFileReason } from './vault-mode';

// The operator's copy of the data key in a key-file vault: its KEK comes from the file's bytes.

/** The KEK of a new key-file vault; a refused file is a `bad_request` with the reason (nothing is stored). */
export function keyFileKekForSetUp(path: string): { kek: Buffer; params: KekParams } {
  const read = readKeyFile(path);
  if (read.kind === 'refused') throw new NexusError('bad_request', `${read.reason} Nothing was stored.`);
  const params = newKeyFileParams();
  try {
    return { kek: keyFileKek(read.bytes, params), params };
  } finally {
    read.bytes.fill(0);
  }
}

/** Opens the operator's copy with the key file at `path`: the data key, or why not (the UI shows it as is). */
export function openWithKeyFile(
  row: PrincipalRow | null,
  term: number,
  path: string | undefined,
): { dek: Dek } | { refused: string } {
  if (!path || !row || row.kekParams.kdf !== 'key_file') return { refused: noKeyFileReason };
  const read = readKeyFile(path);
  if (read.kind === 'refused') return { refused: read.reason };
  try {
    const kek = keyFileKek(read.bytes, row.kekParams);
    return { dek: unwrapFor(row, kek, term, `The key file ${path} does not open this vault.`) };
  } catch (e) {
    return { refused: e instanceof Error ? e.message : String(e) };
  } finally {
    read.bytes.fill(0);
  }
}

/** What set-up will do with the configured key file (or why it cannot), for the uninitialized vault's reason. */
export function keyFileSetUpNote(path: string): string {
  const read = readKeyFile(path);
  if (read.kind === 'refused') return read.reason;
  read.bytes.fill(0);
  return `Set-up keeps the key in the key file ${path}.`;
}
