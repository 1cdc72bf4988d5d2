import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { streamTar } from '../docker';
import { agentCliVolumeName } from './engine-copies';

async function archive(files: Parameters<typeof streamTar>[0]): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const b of streamTar(files)) parts.push(b);
  return Buffer.concat(parts);
}

describe('an agent CLI install copied to a remote engine', () => {
  let dir: { path: string; remove(): void };
  beforeEach(() => {
    dir = tempDir('nexus-cli-tree-');
    const p = dir.path;
    mkdirSync(join(p, 'node_modules/@scope/cli/dist'), { recursive: true });
    mkdirSync(join(p, 'node_modules/.bin'), { recursive: true });
    writeFileSync(join(p, 'node_modules/@scope/cli/package.json'), '{"version":"1.2.3"}');
    writeFileSync(join(p, 'node_modules/@scope/cli/dist/index.js'), '#!/usr/bin/env node\nconsole.log(1)\n');
    chmodSync(join(p, 'node_modules/@scope/cli/dist/index.js'), 0o755);
    symlinkSync('../@scope/cli/dist/index.js', join(p, 'node_modules/.bin/cli'));
  });
  afterEach(() => dir.remove());

  it('takes the whole tree: nested files with their modes, and links as links', () => {
    const { files } = agentCliVolumeName(dir.path);
    expect(files.map((f) => [f.path, f.mode, f.link])).toEqual([
      ['node_modules/.bin/cli', 0o777, '../@scope/cli/dist/index.js'],
      ['node_modules/@scope/cli/dist/index.js', 0o755, undefined],
      ['node_modules/@scope/cli/package.json', 0o644, undefined],
    ]);
  });

  it('is named by its files: the same tree the same volume, a changed file a new one', () => {
    const before = agentCliVolumeName(dir.path).name;
    expect(before).toMatch(/^nexus-agent-cli-[0-9a-f]{16}$/);
    expect(agentCliVolumeName(dir.path).name).toBe(before);
    writeFileSync(join(dir.path, 'node_modules/@scope/cli/package.json'), '{"version":"1.2.4"}');
    expect(agentCliVolumeName(dir.path).name).not.toBe(before);
  });

  it('archives it so tar unpacks the same tree, the link still a link', async () => {
    const out = tempDir('nexus-cli-untar-');
    try {
      const tar = await archive(agentCliVolumeName(dir.path).files);
      execFileSync('tar', ['-x', '-C', out.path], { input: tar });
      const listing = execFileSync('tar', ['-tv'], { input: tar, encoding: 'utf8' });
      expect(listing).toMatch(/^l.* node_modules\/\.bin\/cli -> \.\.\/@scope\/cli\/dist\/index\.js$/m);
      expect(execFileSync(join(out.path, 'node_modules/.bin/cli'), { encoding: 'utf8' })).toBe('1\n');
    } finally {
      out.remove();
    }
  });
});
