import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { repoRoot } from '../../test/helpers/core';

const config = parse(readFileSync(join(repoRoot, 'electron-builder.yml'), 'utf8')) as Record<string, unknown>;

describe('electron-builder configuration', () => {
  it("validates against electron-builder's own schema", () => {
    const schema = JSON.parse(
      readFileSync(join(repoRoot, 'node_modules/app-builder-lib/scheme.json'), 'utf8'),
    ) as object;
    const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
    const validate = ajv.compile(schema);
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
  });

  it('flips the fuses: no RunAsNode, no NODE_OPTIONS, no inspect, asar integrity, asar only, cookie encryption', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
    });
  });

  it('builds AppImage and deb, dmg with the hardened runtime, and nsis', () => {
    expect(config.linux).toMatchObject({ target: ['AppImage', 'deb'] });
    expect(config.mac).toMatchObject({
      target: 'dmg',
      hardenedRuntime: true,
      entitlements: 'resources/entitlements.mac.plist',
    });
    expect(config.win).toMatchObject({ target: 'nsis' });
  });

  it('packs into asar with the native modules unpacked and the worker context as a resource', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/@napi-rs/keyring*/**']),
    );
    expect(config.extraResources).toEqual(
      expect.arrayContaining([expect.objectContaining({ from: 'resources/worker', to: 'resources/worker' })]),
    );
  });

  it('leaves the fixture agent CLI and the TypeScript sources out of the packaged worker context', () => {
    const worker = (config.extraResources as { from: string; filter?: string[] }[]).find(
      (r) => r.from === 'resources/worker',
    );
    expect(worker?.filter).toEqual(expect.arrayContaining(['!fixtures/**', '!**/*.ts']));
  });
});
