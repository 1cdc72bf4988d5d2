import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeCore, createCore, type Core, type CoreOptions } from '../../main/core';
import { openStore, type Db } from '../../main/core/store/open';
import type { CoreConfigInput } from '../../main/core/config';
import { nodePorts } from '../../main/host/node-ports';
import { operatorContext } from '../../main/core/handlers';
import { removeOwnedBy } from './docker';
import { tempDir } from './temp-dir';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A real core (real SQLite file, real keychain port, real Docker client) on `dataDir`, the way the host opens it. */
export function openCore(dataDir: string, config: CoreConfigInput = {}, options: CoreOptions = {}): Promise<Core> {
  // Any free port for the model gateway: tests run many cores at once (the data dir keeps it across restarts).
  return createCore({ version: 'test', gateway: { port: 0 }, ...config }, nodePorts(dataDir, repoRoot), options);
}

/** The same core built and not started (`start()` brings it up), for a test of what building does. */
export function composeTestCore(dataDir: string, config: CoreConfigInput = {}): ReturnType<typeof composeCore> {
  return composeCore({ version: 'test', gateway: { port: 0 }, ...config }, nodePorts(dataDir, repoRoot));
}

const databases = new WeakMap<Pick<Core, 'ports'>, Db>();

/**
 * The database of a core, for a test that reads or plants rows directly: a second connection on
 * the core's own file (WAL, the same busy timeout), opened once per core and closed with it by
 * `testCore`'s cleanup (or by `closeCoreDb`). Core itself does not hand its database out.
 */
export function coreDb(core: Pick<Core, 'ports'>): Db {
  let db = databases.get(core);
  if (!db) {
    db = openStore(join(core.ports.paths.dataDir, 'nexus.db'));
    databases.set(core, db);
  }
  return db;
}

/** Closes the connection `coreDb` opened for this core, if any. */
export function closeCoreDb(core: Pick<Core, 'ports'>): void {
  databases.get(core)?.close();
  databases.delete(core);
}

/** A real core (real SQLite file, real keychain port, real Docker client) on a temp data dir. */
export async function testCore(
  config: CoreConfigInput = {},
  options: CoreOptions = {},
): Promise<{ core: Core; dataDir: string; cleanup(): Promise<void> }> {
  const dir = tempDir();
  const core = await openCore(dir.path, config, options);
  return {
    core,
    dataDir: dir.path,
    cleanup: async () => {
      closeCoreDb(core);
      await core.dispose();
      await removeOwnedBy(dir.path);
      dir.remove();
    },
  };
}

/** `testCore` with the vault initialised (and so unlocked) by the operator: for tests of tokens and secrets. */
export async function vaultCore(config: CoreConfigInput = {}, options: CoreOptions = {}): ReturnType<typeof testCore> {
  const made = await testCore(config, options);
  await made.core.dispatcher.call('vault.init', {}, operatorContext('http'));
  return made;
}
