import { fileURLToPath } from 'node:url';
import { createCore, type Core, type CoreOptions } from '../../main/core';
import type { CoreConfigInput } from '../../main/core/config';
import { nodePorts } from '../../main/host/node-ports';
import { tempDir } from './temp-dir';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A real core (real SQLite file, real keychain port, real Docker client) on a temp data dir. */
export async function testCore(
  config: CoreConfigInput = {},
  options: CoreOptions = {},
): Promise<{ core: Core; dataDir: string; cleanup(): Promise<void> }> {
  const dir = tempDir();
  const core = await createCore({ version: 'test', ...config }, nodePorts(dir.path, repoRoot), options);
  return {
    core,
    dataDir: dir.path,
    cleanup: async () => {
      await core.dispose();
      dir.remove();
    },
  };
}
