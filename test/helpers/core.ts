import { fileURLToPath } from 'node:url';
import { createCore, type Core, type CoreOptions } from '../../main/core';
import type { CoreConfigInput } from '../../main/core/config';
import { nodePorts } from '../../main/host/node-ports';
import { tempDir } from './temp-dir';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A real core (real SQLite file, real keychain port, real Docker client) on `dataDir`, the way the host opens it. */
export function openCore(dataDir: string, config: CoreConfigInput = {}, options: CoreOptions = {}): Promise<Core> {
  return createCore({ version: 'test', ...config }, nodePorts(dataDir, repoRoot), options);
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
      await core.dispose();
      dir.remove();
    },
  };
}
