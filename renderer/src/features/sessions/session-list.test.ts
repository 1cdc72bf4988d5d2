import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../shared/contract/sessions';
import { applySessionChange, byWorkspace } from './session-list';

const session = (id: string, workspaceName: string, agentState: Session['agentState'] = 'idle'): Session => ({
  id,
  workspaceId: `w-${workspaceName}`,
  workspaceName,
  name: id,
  branch: `nexus/${id}`,
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
