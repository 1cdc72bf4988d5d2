import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../test/helpers/core';
import { tempDir } from '../../test/helpers/temp-dir';

// Electronegativity over everything that runs inside Electron: shell, preload and renderer,
// together, so its global checks (CSP, navigation limits, permission handler) see the whole app.
describe('Electronegativity scan', () => {
  it('reports no high-severity finding in the app source', async () => {
    const dir = tempDir('nexus-scan-');
    try {
      const app = join(dir.path, 'app');
      const skipTests = (src: string): boolean => !/\.test\.tsx?$/.test(src);
      for (const part of ['main/electron', 'preload', 'renderer/src']) {
        mkdirSync(join(app, part), { recursive: true });
        cpSync(join(repoRoot, part), join(app, part), { recursive: true, filter: skipTests });
      }
      cpSync(join(repoRoot, 'renderer/index.html'), join(app, 'renderer/index.html'));
      const { default: run } = await import('@doyensec/electronegativity');
      const result = await run({
        input: app,
        output: null,
        isSarif: false,
        customScan: [],
        excludeFromScan: [],
        isRelative: true,
        electronVersionOverride: '45.0.0',
      });
      const high = result.issues.filter(
        (i) => (typeof i.severity === 'string' ? i.severity : i.severity.name) === 'HIGH',
      );
      expect(result.errors).toEqual([]);
      expect(high.map((i) => `${i.id} ${i.file}: ${i.description}`)).toEqual([]);
      // The scan did run its checks: the CSP is seen (meta tag), so no "no CSP" finding.
      expect(result.issues.some((i) => i.id === 'CSP_GLOBAL_CHECK' && /No CSP/.test(i.description))).toBe(false);
    } finally {
      dir.remove();
    }
  }, 120_000);
});
