import { describe, expect, it } from 'vitest';
import { NexusError } from '../../../../shared/errors';
import {
  checkSessionMemory,
  effectiveSessionCap,
  holdsMemory,
  memoryText,
  sessionMemoryOf,
  sessionsMemoryHolds,
} from './memory-admission';
import { CoreConfig } from '../../config';

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const twoGib = { limitBytes: 2 * GIB, perSessionBytes: 256 * MIB };

const refusal = (fn: () => void): NexusError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof NexusError) return e;
    throw e;
  }
  throw new Error('the create was admitted');
};

describe('admission by memory', () => {
  it('lets a 2 GiB container at 256 MiB a session hold 8, and refuses the ninth with the numbers and what to do', () => {
    expect(sessionsMemoryHolds(twoGib)).toBe(8);
    expect(() => checkSessionMemory('alpha', 7, twoGib)).not.toThrow();
    const e = refusal(() => checkSessionMemory('alpha', 8, twoGib));
    expect(e.code).toBe('conflict');
    expect(e.message).toBe(
      'Workspace alpha has no memory for another session: its container is limited to 2 GiB (docker.memoryBytes) ' +
        'and runs 8 session(s) at about 256 MiB each (quota.sessionMemoryBytes), so it holds 8. Create the session ' +
        'in another workspace, delete one of its sessions, or raise docker.memoryBytes (workspaces created after ' +
        'the change get the new limit).',
    );
  });

  it('refuses every create in a container too small for even one session', () => {
    const tiny = { limitBytes: 200 * MIB, perSessionBytes: 256 * MIB };
    expect(sessionsMemoryHolds(tiny)).toBe(0);
    expect(refusal(() => checkSessionMemory('tiny', 0, tiny)).message).toMatch(/limited to 200 MiB .* holds 0\./);
  });

  it('counts a create on its way and a running agent, never an exited or failed session', () => {
    expect(['creating', 'running', 'exited', 'error'].filter((s) => holdsMemory(s as never))).toEqual([
      'creating',
      'running',
    ]);
  });

  it('caps a workspace at the quota or at what its memory holds, whichever is fewer', () => {
    expect(effectiveSessionCap(16, twoGib)).toBe(8);
    expect(effectiveSessionCap(3, twoGib)).toBe(3);
  });

  it('with the default config, a workspace holds the 16 sessions its quota allows (4 GiB at 256 MiB each)', () => {
    const config = CoreConfig.parse({});
    const memory = sessionMemoryOf(config);
    expect(memory).toEqual({ limitBytes: 4 * GIB, perSessionBytes: 256 * MIB });
    expect(effectiveSessionCap(config.quota.maxSessionsPerWorkspace, memory)).toBe(16);
  });

  it('writes figures the way the config reads them', () => {
    expect(memoryText(2 * GIB)).toBe('2 GiB');
    expect(memoryText(1.5 * GIB)).toBe('1.5 GiB');
    expect(memoryText(256 * MIB)).toBe('256 MiB');
    expect(memoryText(48 * MIB)).toBe('48 MiB');
  });
});
