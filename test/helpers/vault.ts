import type { Core } from '../../main/core';
import { openCore } from './core';
import { tempDir } from './temp-dir';

/** A data dir that outlives the cores opened on it, so a test can restart Nexus on the same vault. */
export function vaultDataDir(): { path: string; open(): Promise<Core>; remove(): void } {
  const dir = tempDir('nexus-vault-');
  return {
    path: dir.path,
    open: () => openCore(dir.path),
    remove: dir.remove,
  };
}
