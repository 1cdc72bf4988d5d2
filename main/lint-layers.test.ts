import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { repoRoot } from '../test/helpers/core';

// Proves the layer rule bites: the real lint config, run on code placed in each layer.
const eslint = new ESLint({ cwd: repoRoot });
async function ruleHits(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${repoRoot}/${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  it('fails lint when main/core imports electron', async () => {
    const hits = await ruleHits(
      "import { app } from 'electron';\nexport const x = app;\n",
      'main/core/some-service.ts',
    );
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]).toMatch(/port/);
  });

  it('fails lint when shared imports electron or a Node module', async () => {
    expect(
      await ruleHits("import { app } from 'electron';\nexport const x = app;\n", 'shared/thing.ts'),
    ).not.toHaveLength(0);
    expect(
      await ruleHits("import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", 'shared/thing.ts'),
    ).not.toHaveLength(0);
  });

  it('fails lint when the renderer imports a Node or server-only module', async () => {
    expect(await ruleHits("import fs from 'fs';\nexport const x = fs;\n", 'renderer/src/x.ts')).not.toHaveLength(0);
    expect(
      await ruleHits("import { spawn } from 'node:child_process';\nexport const x = spawn;\n", 'renderer/src/x.ts'),
    ).not.toHaveLength(0);
    expect(
      await ruleHits("import Database from 'better-sqlite3';\nexport const x = Database;\n", 'renderer/src/x.ts'),
    ).not.toHaveLength(0);
  });

  it('allows electron in the shell and Node in core', async () => {
    expect(
      await ruleHits("import { app } from 'electron';\nexport const x = app;\n", 'main/electron/x.ts'),
    ).toHaveLength(0);
    expect(
      await ruleHits("import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", 'main/core/x.ts'),
    ).toHaveLength(0);
  });
});
