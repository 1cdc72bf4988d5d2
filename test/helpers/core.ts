import { fileURLToPath } from 'node:url';
import { createCore, type Core } from '../../main/core';
import type { CoreConfigInput } from '../../main/core/config';
import { nodePorts } from '../../main/host/node-ports';
import { tempDir } from './temp-dir';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A real core (real SQLite file, real keychain port, real Docker client) on a temp data dir. */
export async function testCore(config: CoreConfigInput = {}): Promise<{ core: Core; dataDir: string; cleanup(): Promise<void> }> {
  const dir = tempDir();
  const core = await createCore({ version: 'test', ...config }, nodePorts(dir.path, repoRoot));
  return {
    core,
    dataDir: dir.path,
    cleanup: async () => {
      await core.dispose();
      dir.remove();
    },
  };
}
