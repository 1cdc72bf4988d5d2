import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../test/helpers/core';
import { AGENT_KINDS, AgentDrivers } from './registry';
import { testDrivers } from '../../../test/helpers/agent-drivers';

/**
 * The agent seam (docs/agents.md): a kind is its folder `main/core/agents/<kind>/` plus one line in registry.ts.
 * No other production file names a kind's id as a string (the way a `row.agent === '<kind>'` branch would), so a
 * new kind touches no other file. The same holds for the vault secret kinds a kind declares (its credentials: an API
 * key, an OAuth token): only the folders of the kinds that declare one name it, so a kind with a new key type touches
 * neither the contract nor the secret form. History is exempt: migrations record the kinds that existed when they ran.
 */
const PRODUCTION = ['main', 'shared', 'renderer/src', 'preload', 'resources/worker'];

/** Every tracked production source file (tests, fixtures and migrations excluded). */
function productionFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--', ...PRODUCTION], { cwd: repoRoot, encoding: 'utf8' });
  return out
    .split('\n')
    .filter((f) => /\.(ts|tsx|mjs|cjs)$/.test(f))
    .filter((f) => !/\.test\.tsx?$/.test(f) && !f.includes('/fixtures/') && !f.includes('/store/migrations/'));
}

describe('the agent seam', () => {
  it('has a driver per registry kind, each named by its own folder', () => {
    const drivers = testDrivers();
    expect(drivers.all.map((d) => d.kind)).toEqual(AGENT_KINDS);
    expect(drivers).toBeInstanceOf(AgentDrivers);
    for (const d of drivers.all) {
      expect(d.label.length).toBeGreaterThan(0);
      expect(d.credential.secretKinds.length).toBeGreaterThan(0);
      // A kind from before the gateway still names the tmpfs files its key was once in (removed at each start).
      if (d.credential.files.length)
        for (const k of d.credential.secretKinds) expect(d.credential.files).toContain(d.credential.fileFor(k.kind));
    }
  });

  it('refuses a kind it has no driver for, naming the ones it runs', () => {
    expect(() => testDrivers().get('no-such-kind')).toThrow(`it runs ${AGENT_KINDS.join(', ')}`);
  });

  it('names no kind outside agents/<kind>/ and the registry line', () => {
    const files = productionFiles();
    expect(files.length).toBeGreaterThan(200);
    const offenders: string[] = [];
    for (const kind of AGENT_KINDS) {
      const own = `main/core/agents/${kind}/`;
      const quoted = new RegExp(`(['"\`])${kind}\\1`);
      for (const f of files)
        if (
          !f.startsWith(own) &&
          f !== 'main/core/agents/registry.ts' &&
          quoted.test(readFileSync(join(repoRoot, f), 'utf8'))
        )
          offenders.push(`${f} names "${kind}"`);
    }
    expect(offenders).toEqual([]);
  });

  it('names no credential kind outside the folders of the kinds that declare it', () => {
    const files = productionFiles();
    const credentials = testDrivers().credentials;
    expect(credentials.length).toBeGreaterThan(0);
    const offenders: string[] = [];
    for (const { kind, agents } of credentials) {
      const own = agents.map((a) => `main/core/agents/${a}/`);
      const quoted = new RegExp(`(['"\`])${kind}\\1`);
      for (const f of files)
        if (!own.some((o) => f.startsWith(o)) && quoted.test(readFileSync(join(repoRoot, f), 'utf8')))
          offenders.push(`${f} names "${kind}"`);
    }
    expect(offenders).toEqual([]);
  });
});
