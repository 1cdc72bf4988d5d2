import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../shared/contract/sessions';
import { applySessionChange, byWorkspace, groupsFor } from './session-list';

const session = (id: string, workspaceName: string, agentState: Session['agentState'] = 'idle'): Session => ({
  id,
  workspaceId: `w-${workspaceName}`,
  workspaceName,
  name: id,
  branch: `nexus/${id}`,
  agent: 'claude',
  status: 'running',
  reason: null,
  taskId: null,
  toolsReason: null,
  agentState,
  agentStateAt: null,
  agentMessage: null,
  createdAt: '2026-11-29T00:00:00Z',
  updatedAt: '2026-11-29T00:00:00Z',
});

describe('session list', () => {
  it('replaces a changed session in place, appends a new one and drops a removed one', () => {
    const list = [session('a', 'demo'), session('b', 'demo')];
    expect(
      applySessionChange(list, { session: session('a', 'demo', 'waiting_permission') }).map((s) => [
        s.id,
        s.agentState,
      ]),
    ).toEqual([
      ['a', 'waiting_permission'],
      ['b', 'idle'],
    ]);
    expect(applySessionChange(list, { session: session('c', 'other') }).map((s) => s.id)).toEqual(['a', 'b', 'c']);
    expect(applySessionChange(list, { session: null, removedId: 'a' }).map((s) => s.id)).toEqual(['b']);
  });

  it('groups sessions per workspace in name order', () => {
    const groups = byWorkspace([session('a', 'zeta'), session('b', 'alpha'), session('c', 'zeta')]);
    expect(groups.map(([w, items]) => [w, items.map((s) => s.id)])).toEqual([
      ['alpha', ['b']],
      ['zeta', ['a', 'c']],
    ]);
  });
});

describe('groupsFor', () => {
  const groups = byWorkspace(
    ['a', 'b', 'c', 'd'].flatMap((w) => [session(`${w}1`, w), session(`${w}2`, w), session(`${w}3`, w)]),
  );
  const names = (g: ReturnType<typeof groupsFor>): string[] => g.map(([w]) => w);
  it('shows whole workspaces until they hold the rows asked for', () => {
    expect(names(groupsFor(groups, 4, null))).toEqual(['a', 'b']);
    expect(names(groupsFor(groups, 3, null))).toEqual(['a']);
    expect(names(groupsFor(groups, Infinity, null))).toEqual(['a', 'b', 'c', 'd']);
  });
  it("always shows the selected session's workspace", () => {
    expect(names(groupsFor(groups, 3, 'c2'))).toEqual(['a', 'b', 'c']);
  });
});
