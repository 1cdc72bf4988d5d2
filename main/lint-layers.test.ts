import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { repoRoot } from '../test/helpers/core';

// Proves the layer rules bite: the real lint config, run on code placed in each layer.
const eslint = new ESLint({ cwd: repoRoot });
const layerRules = new Set(['no-restricted-imports', 'nexus/layers']);
async function ruleHits(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${repoRoot}/${filePath}` });
  return (result?.messages ?? []).filter((m) => layerRules.has(m.ruleId ?? '')).map((m) => m.message);
}
const importing = (spec: string) => `import { thing } from '${spec}';\nexport const x = thing;\n`;

describe('layer rules by package', () => {
  it('fails lint when main/core imports electron', async () => {
    const hits = await ruleHits(
      "import { app } from 'electron';\nexport const x = app;\n",
      'main/core/some-service.ts',
    );
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]).toMatch(/port/);
  });

  it('fails lint when shared imports electron or a Node module', async () => {
    expect(await ruleHits(importing('electron'), 'shared/thing.ts')).not.toHaveLength(0);
    expect(await ruleHits(importing('node:fs'), 'shared/thing.ts')).not.toHaveLength(0);
  });

  it('fails lint when the renderer imports a Node or server-only module', async () => {
    expect(await ruleHits("import fs from 'fs';\nexport const x = fs;\n", 'renderer/src/x.ts')).not.toHaveLength(0);
    expect(await ruleHits(importing('node:child_process'), 'renderer/src/x.ts')).not.toHaveLength(0);
    expect(await ruleHits(importing('better-sqlite3'), 'renderer/src/x.ts')).not.toHaveLength(0);
  });

  it('allows electron in the shell and Node in core', async () => {
    expect(await ruleHits(importing('electron'), 'main/electron/x.ts')).toHaveLength(0);
    expect(await ruleHits(importing('node:fs'), 'main/core/x.ts')).toHaveLength(0);
  });
});

describe('layer rules by path', () => {
  it.each([
    ['main/core/vault/x.ts', '../../host/server', 'main/host'],
    ['main/core/x.ts', '../electron/main', 'main/electron'],
    ['main/core/mcp/x.ts', '../../cli/token-command', 'main/cli'],
    ['main/core/x.ts', '../cli', 'main/cli'],
    ['main/core/x.ts', '../serve.ts', 'main/serve'],
    ['main/core/sessions/x.ts', '../../../renderer/src/api/client', 'renderer'],
    ['main/core/x.ts', '../../preload/api', 'preload'],
    ['shared/x.ts', '../main/core/log', 'shared imports only shared'],
    ['shared/contract/x.ts', '../../main/host/server', 'shared imports only shared'],
    ['shared/x.ts', '../renderer/src/api/errors', 'shared imports only shared'],
    ['shared/x.ts', '../test/helpers/wait', 'shared imports only shared'],
    ['renderer/src/api/x.ts', '../../../main/core/log', 'renderer never imports main'],
    ['renderer/src/x.ts', '../../main/electron/ipc', 'renderer never imports main'],
    ['renderer/src/features/sessions/x.tsx', '../../../../preload/api', 'preload'],
    ['main/core/platform/x.ts', '../../../test/helpers/core', 'main/core never imports test'],
    ['main/core/x.ts', '../../test/children/open-vault', 'main/core never imports test'],
    ['main/core/sessions/x.ts', '../../../e2e/fixtures/nexus', 'main/core never imports e2e'],
    ['main/core/sessions/x.test.ts', '../../../e2e/fixtures/nexus', 'a vitest test never imports e2e'],
    ['main/host/x.test.ts', '../../e2e/fixtures/nexus', 'a vitest test never imports e2e'],
    ['renderer/src/x.test.tsx', '../../e2e/pages/app-page', 'a vitest test never imports e2e'],
    ['test/helpers/x.test.ts', '../../e2e/fixtures/nexus', 'a vitest test never imports e2e'],
    ['main/core/docker/x.ts', '../workspaces/workspace-store', 'main/core/docker imports only'],
    ['main/core/docker/x.ts', '../sessions/session-service', 'main/core/docker imports only'],
    ['main/core/sessions/x.ts', '../docker/containers', 'main/core/docker is imported through its face'],
    ['main/core/x.ts', './docker/exec', 'main/core/docker is imported through its face'],
    ['main/core/review/x.ts', '../sessions/session-service', 'main/core/sessions is imported through its face'],
    ['main/core/tracker/x.ts', '../platform/store/tasks', 'main/core/platform is imported through its face'],
    ['main/host/x.ts', '../core/sessions/session-service', 'main/core/sessions is imported through its face'],
    ['main/electron/x.ts', '../core/vault/os-keychain', 'main/core/vault is imported through its face'],
  ])('fails lint when %s imports %s', async (file, spec, said) => {
    const hits = await ruleHits(importing(spec), file);
    expect(hits.filter((m) => m.startsWith('Layer rule:') && m.includes(said))).toHaveLength(1);
  });

  it('catches every import form: type-only, re-export, dynamic import and require', async () => {
    const file = 'main/core/x.ts';
    expect(await ruleHits("import type { Host } from '../host/server';\nexport type X = Host;\n", file)).toHaveLength(
      1,
    );
    expect(await ruleHits("export { startHost } from '../host/server';\n", file)).toHaveLength(1);
    expect(await ruleHits("export * from '../host/server';\n", file)).toHaveLength(1);
    expect(await ruleHits("export const x = () => import('../host/server');\n", file)).toHaveLength(1);
    expect(await ruleHits("export type X = typeof import('../host/server');\n", file)).toHaveLength(1);
    expect(await ruleHits("export const x: unknown = require('../host/server');\n", file)).toHaveLength(1);
  });

  it.each([
    ['main/host/x.ts', '../core/index'],
    ['main/electron/x.ts', '../core/vault'],
    ['main/core/sessions/launch/x.ts', '../session-service'],
    ['main/core/sessions/x.ts', '../workspaces'],
    ['main/cli/x.ts', '../host/server'],
    ['main/serve.ts', './host/server'],
    ['main/core/vault/x.ts', '../../../shared/errors'],
    ['main/core/vault/x.ts', '../log'],
    ['shared/contract/x.ts', '../errors'],
    ['shared/x.ts', './contract/sessions'],
    ['renderer/src/api/x.ts', '../../../shared/contract'],
    ['renderer/src/features/x.tsx', '../shell/Page'],
    ['preload/x.ts', '../shared/ipc'],
    ['main/core/platform/x.test.ts', '../../../test/helpers/core'],
    ['main/host/x.test.ts', '../../test/helpers/core'],
    ['e2e/x.spec.ts', './fixtures/nexus'],
    ['main/core/sessions/x.ts', '../docker'],
    ['main/core/sessions/x.ts', '../docker/index'],
    ['main/core/docker/x.ts', './containers'],
    ['main/core/docker/x.test.ts', '../workspaces/workspace-store'],
    ['main/core/sessions/x.test.ts', '../docker/containers'],
  ])('allows %s to import %s', async (file, spec) => {
    expect(await ruleHits(importing(spec), file)).toHaveLength(0);
  });
});
