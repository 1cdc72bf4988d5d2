import { createCore, type Core } from '../../main/core';
import { nodePorts } from '../../main/host/node-ports';
import { repoRoot } from './core';
import { tempDir } from './temp-dir';

/** A data dir that outlives the cores opened on it, so a test can restart Nexus on the same vault. */
export function vaultDataDir(): { path: string; open(): Promise<Core>; remove(): void } {
  const dir = tempDir('nexus-vault-');
  return {
    path: dir.path,
    open: () => createCore({ version: 'test' }, nodePorts(dir.path, repoRoot)),
    remove: dir.remove,
  };
}
