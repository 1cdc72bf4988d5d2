import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { readDockerContexts } from './docker-contexts';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('importing Docker contexts', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  const context = (name: string, host: string, tls = false): void => {
    const meta = join(dir.path, 'contexts', 'meta', sha(name));
    mkdirSync(meta, { recursive: true });
    writeFileSync(join(meta, 'meta.json'), JSON.stringify({ Name: name, Endpoints: { docker: { Host: host } } }));
    if (tls) mkdirSync(join(dir.path, 'contexts', 'tls', sha(name), 'docker'), { recursive: true });
  };

  it('lists each context with its address, whether it has TLS material, and which one is current', () => {
    context('build', 'ssh://nexus@build.lan');
    context('tls-box', 'tcp://box.lan:2376', true);
    writeFileSync(join(dir.path, 'config.json'), JSON.stringify({ currentContext: 'build' }));
    const found = readDockerContexts(dir.path).sort((a, b) => a.name.localeCompare(b.name));
    expect(found).toEqual([
      { name: 'build', host: 'ssh://nexus@build.lan', tls: false, skipTlsVerify: false, current: true },
      { name: 'tls-box', host: 'tcp://box.lan:2376', tls: true, skipTlsVerify: false, current: false },
    ]);
  });

  it('skips a broken meta.json and finds nothing where there are no contexts', () => {
    expect(readDockerContexts(join(dir.path, 'none'))).toEqual([]);
    context('ok', 'ssh://a@b');
    const bad = join(dir.path, 'contexts', 'meta', 'junk');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'meta.json'), '{not json');
    expect(readDockerContexts(dir.path).map((c) => c.name)).toEqual(['ok']);
  });
});
