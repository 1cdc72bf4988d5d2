import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/temp-dir';
import { resolveAppFile } from './app-protocol';

describe('app:// protocol file resolution', () => {
  const dir = tempDir('nexus-app-');
  const root = join(dir.path, 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), 'x');
  writeFileSync(join(root, 'assets', 'a.js'), 'x');
  writeFileSync(join(dir.path, 'secret.txt'), 'x');
  symlinkSync(join(dir.path, 'secret.txt'), join(root, 'assets', 'link.js'));
  afterAll(() => dir.remove());

  it('serves index.html for the root and files under the renderer dir', () => {
    expect(resolveAppFile(root, 'app://nexus/')).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://nexus/assets/a.js')).toBe(join(root, 'assets', 'a.js'));
  });

  it.each([
    'app://nexus/../secret.txt',
    'app://nexus/assets/..%2F..%2Fsecret.txt',
    'app://nexus/%2e%2e/secret.txt',
    'app://nexus/assets/link.js',
    'app://other/index.html',
    'file:///etc/passwd',
    'app://nexus/missing.js',
    'app://nexus/%E0%A4%A',
  ])('gives nothing for %s', (url) => {
    expect(resolveAppFile(root, url)).toBeNull();
  });
});
