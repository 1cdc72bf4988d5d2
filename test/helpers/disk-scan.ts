import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Core } from '../../main/core';
import { coreDb } from './core';

/**
 * The files under a core's data dir whose bytes hold any of `needles`, for "never written to disk"
 * checks. The write-ahead log is checkpointed first, so nothing the database keeps is missed; a file
 * that vanishes while it is read is passed over.
 */
export function filesHolding(core: Pick<Core, 'ports'>, needles: readonly string[]): string[] {
  coreDb(core).pragma('wal_checkpoint(TRUNCATE)');
  const dataDir = core.ports.paths.dataDir;
  const held: string[] = [];
  for (const file of readdirSync(dataDir, { recursive: true }) as string[]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dataDir, file));
    } catch {
      continue;
    }
    if (needles.some((n) => bytes.includes(Buffer.from(n)))) held.push(file);
  }
  return held;
}
