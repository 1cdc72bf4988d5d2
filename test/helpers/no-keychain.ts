import { createCore, type Core } from '../../main/core';
import type { CoreConfigInput } from '../../main/core/config';
import type { Keychain } from '../../main/core/ports';
import { nodePorts } from '../../main/host/node-ports';
import { NoBusKeychain } from '../fakes/keychains';
import { coreDb, closeCoreDb, repoRoot } from './core';
import { tempDir } from './temp-dir';

/**
 * A data dir whose cores get `keychain` (default: one that rejects like the real keychain without a
 * session bus), everything else real; it outlives its cores so a test can restart Nexus on it.
 */
export function noKeychainDataDir(
  keychain: Keychain = new NoBusKeychain(),
  config: (dataDir: string) => CoreConfigInput = () => ({}),
) {
  const dir = tempDir('nexus-no-keychain-');
  const open = (): Promise<Core> =>
    createCore({ version: 'test', ...config(dir.path) }, { ...nodePorts(dir.path, repoRoot), keychain });
  return { path: dir.path, keychain, open, remove: dir.remove };
}

/** Closes a core opened on such a data dir (and the test's own connection to its database). */
export async function closeCore(core: Core): Promise<void> {
  closeCoreDb(core);
  await core.dispose();
}

/** A workspace row, as if created earlier (delegation needs a workspace; no engine is asked). */
export function plantWorkspace(core: Core, id: string, name: string): void {
  const now = new Date().toISOString();
  coreDb(core)
    .prepare(
      'INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) ' +
        "VALUES (?, ?, 'https://example.invalid/r.git', 'stopped', ?, ?, ?)",
    )
    .run(id, name, `nexus-test-vol-${id}`, now, now);
}
