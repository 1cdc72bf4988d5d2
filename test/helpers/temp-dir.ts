import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh directory under the OS temp dir, removed by the returned function. The removal retries a
 * while: a process the test just killed (an agent's hook child, say) may still be writing in it (ENOTEMPTY).
 */
export function tempDir(prefix = 'nexus-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}
