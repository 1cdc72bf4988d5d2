import { describe, expect, it } from 'vitest';
import type { SessionAttention } from '../../../../shared/attention';
import type { Session } from '../../../../shared/contract/sessions';
import { countByLevel, filterSessions, levelOf, moveSelection } from './session-filter';

const session = (name: string, agentState: Session['agentState'], workspaceName = 'api'): Session => ({
  id: `id-${name}`,
  workspaceId: `ws-${workspaceName}`,
  workspaceName,
  name,
  branch: `nexus/${name}`,
  agent: 'claude',
  status: 'running',
  reason: null,
  taskId: null,
  toolsReason: null,
  agentState,
  agentStateAt: null,
  agentMessage: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});
const list = [
  session('fix-auth', 'waiting_permission'),
  session('docs', 'working'),
  session('cleanup', 'idle', 'web'),
  session('old', 'exited', 'web'),
];
const none = new Map<string, SessionAttention>();

describe('the Sessions filters', () => {
  it('shows the whole list, unchanged, with no filter', () => {
    expect(filterSessions(list, { level: 'all', query: '' }, none)).toBe(list);
  });

  it('shows only the sessions at the chosen level', () => {
    const names = (level: 'needs_you' | 'working' | 'idle' | 'offline') =>
      filterSessions(list, { level, query: '' }, none).map((s) => s.name);
    expect(names('needs_you')).toEqual(['fix-auth']);
    expect(names('working')).toEqual(['docs']);
    expect(names('idle')).toEqual(['cleanup']);
    expect(names('offline')).toEqual(['old']);
  });

  it('finds sessions by a part of their name or their workspace, in any case', () => {
    expect(filterSessions(list, { level: 'all', query: 'AUTH' }, none).map((s) => s.name)).toEqual(['fix-auth']);
    expect(filterSessions(list, { level: 'all', query: 'web' }, none).map((s) => s.name)).toEqual(['cleanup', 'old']);
    expect(filterSessions(list, { level: 'working', query: 'web' }, none)).toEqual([]);
  });

  it("takes the roll-up's level where it has one: a stopped workspace's session is offline", () => {
    const rolled = new Map<string, SessionAttention>([
      [
        'id-docs',
        {
          sessionId: 'id-docs',
          sessionName: 'docs',
          workspaceName: 'api',
          level: 'offline',
          reason: 'Workspace api is not running',
          since: null,
        },
      ],
    ]);
    expect(levelOf(list[1] as Session, rolled)).toBe('offline');
    expect(countByLevel(list, rolled)).toEqual({ needs_you: 1, working: 0, idle: 1, offline: 2 });
  });
});

describe('moving the selection with the keyboard', () => {
  const order = ['a', 'b', 'c'];
  it('moves one session down or up, and stops at either end', () => {
    expect(moveSelection(order, 'a', 1)).toBe('b');
    expect(moveSelection(order, 'b', -1)).toBe('a');
    expect(moveSelection(order, 'c', 1)).toBe('c');
    expect(moveSelection(order, 'a', -1)).toBe('a');
  });

  it('starts at the first session going down, the last going up, when none is selected or it is hidden', () => {
    expect(moveSelection(order, null, 1)).toBe('a');
    expect(moveSelection(order, 'gone', -1)).toBe('c');
    expect(moveSelection([], null, 1)).toBeNull();
  });

  it('jumps to the ends (Home, End)', () => {
    expect(moveSelection(order, 'b', -order.length)).toBe('a');
    expect(moveSelection(order, 'b', order.length)).toBe('c');
  });
});
