import { describe, expect, it } from 'vitest';
import { firstRunSteps } from './first-run';

const empty = { vault: 'uninitialized' as const, agentCredential: false, workspaces: 0, runningSessions: 0 };
const ticked = (state: Parameters<typeof firstRunSteps>[0]) =>
  firstRunSteps(state)
    .filter((s) => s.done)
    .map((s) => s.id);

describe('firstRunSteps', () => {
  it('starts an empty Nexus with four steps to do, each linking to the page that does it', () => {
    const steps = firstRunSteps(empty);
    expect(steps.map((s) => [s.title, s.href, s.done])).toEqual([
      ['Set up the vault', '#/settings/vault', false],
      ['Add an agent credential', '#/settings/agent', false],
      ['Create a workspace', '#/workspaces', false],
      ['Start a session', '#/sessions', false],
    ]);
  });

  it('ticks the vault once it is set up, locked or not', () => {
    expect(ticked({ ...empty, vault: 'locked' })).toEqual(['vault']);
    expect(ticked({ ...empty, vault: 'unlocked' })).toEqual(['vault']);
  });

  it('ticks each later step from its own state, whatever order they are done in', () => {
    expect(ticked({ ...empty, agentCredential: true })).toEqual(['credential']);
    expect(ticked({ ...empty, workspaces: 1 })).toEqual(['workspace']);
    expect(ticked({ vault: 'unlocked', agentCredential: true, workspaces: 2, runningSessions: 1 })).toEqual([
      'vault',
      'credential',
      'workspace',
      'session',
    ]);
  });

  it('does not tick the session step for a session that no longer runs', () => {
    expect(ticked({ vault: 'unlocked', agentCredential: true, workspaces: 1, runningSessions: 0 })).not.toContain(
      'session',
    );
  });
});
