import { describe, expect, it } from 'vitest';
import { AgentState, SessionStatus } from './contract/sessions';
import {
  deriveAttention,
  newlyNeedingYou,
  permissionReason,
  rollUp,
  type AttentionInput,
  type SessionAttention,
} from './attention';

const input = (
  status: SessionStatus,
  agentState: AgentState,
  workspaceRunning: boolean,
  message: string | null = null,
): AttentionInput => ({
  session: {
    id: 's1',
    name: 'fix-auth',
    workspaceName: 'api',
    status,
    reason: status === 'error' ? 'worktree add failed' : null,
  },
  health: { agentState, at: '2026-11-29T10:00:00.000Z', message },
  workspaceRunning,
});

describe('deriveAttention', () => {
  // Every combination of the three inputs: session row status × agent state × workspace running.
  const expected: Record<SessionStatus, Record<AgentState, [string, RegExp]>> = {
    running: {
      starting: ['working', /Starting/],
      working: ['working', /Working/],
      waiting_permission: ['needs_you', /Permission needed: Bash/],
      waiting_input: ['needs_you', /Waiting for your input/],
      idle: ['idle', /Idle/],
      exited: ['offline', /Agent exited/],
    },
    creating: Object.fromEntries(AgentState.options.map((s) => [s, ['working', /Starting/]])) as Record<
      AgentState,
      [string, RegExp]
    >,
    exited: Object.fromEntries(AgentState.options.map((s) => [s, ['offline', /Session has exited/]])) as Record<
      AgentState,
      [string, RegExp]
    >,
    error: Object.fromEntries(
      AgentState.options.map((s) => [s, ['needs_you', /Session failed: worktree add failed/]]),
    ) as Record<AgentState, [string, RegExp]>,
  };
  const rows = SessionStatus.options.flatMap((status) =>
    AgentState.options.flatMap((agent) => [true, false].map((running) => [status, agent, running] as const)),
  );

  it.each(rows)('session %s, agent %s, workspace running %s', (status, agent, running) => {
    const result = deriveAttention(input(status, agent, running, 'Claude needs your permission to use Bash'));
    if (!running) {
      // The third input wins: a stopped container means nobody is working or waiting there.
      expect(result.level).toBe('offline');
      expect(result.reason).toBe('Workspace api is not running');
      expect(result.since).toBeNull();
      return;
    }
    const [level, reason] = expected[status][agent];
    expect(result.level).toBe(level);
    expect(result.reason).toMatch(reason);
  });

  it('a finished session whose branch conflicts with another finished one needs you; a busy or asking one does not change', () => {
    const conflict = { withSession: 'add-cache', files: 2, since: '2026-11-29T11:00:00.000Z' };
    const idle = deriveAttention({ ...input('running', 'idle', true), conflict });
    expect(idle).toMatchObject({ level: 'needs_you', since: conflict.since });
    expect(idle.reason).toBe('Conflicts with add-cache in 2 files: land one first');
    expect(deriveAttention({ ...input('running', 'idle', true), conflict: { ...conflict, files: 1 } }).reason).toBe(
      'Conflicts with add-cache in 1 file: land one first',
    );
    // The permission ask is the more urgent reason; a working agent may still resolve it; a stopped workspace is offline.
    expect(deriveAttention({ ...input('running', 'waiting_permission', true), conflict }).reason).toBe(
      'Permission needed',
    );
    expect(deriveAttention({ ...input('running', 'working', true), conflict }).level).toBe('working');
    expect(deriveAttention({ ...input('running', 'idle', false), conflict }).level).toBe('offline');
  });

  it('covers all 48 combinations', () => {
    expect(rows).toHaveLength(4 * 6 * 2);
  });

  it('says which tool needs permission, or just that one does', () => {
    expect(permissionReason('Claude needs your permission to use Bash')).toBe('Permission needed: Bash');
    expect(permissionReason('Claude needs your permission to use mcp__nexus__memory_propose.')).toBe(
      'Permission needed: mcp__nexus__memory_propose',
    );
    expect(permissionReason(null)).toBe('Permission needed');
  });
});

describe('rollUp', () => {
  const item = (id: string, level: SessionAttention['level'], since: string | null): SessionAttention => ({
    sessionId: id,
    sessionName: id,
    workspaceName: 'w',
    level,
    reason: level,
    since,
  });

  it('counts every level and lists what needs you oldest first', () => {
    const fleet = rollUp(
      [
        item('a', 'needs_you', '2026-11-29T10:05:00Z'),
        item('b', 'working', null),
        item('c', 'needs_you', '2026-11-29T10:01:00Z'),
        item('d', 'idle', null),
        item('e', 'offline', null),
      ],
      { memories: 2, skills: 1 },
    );
    expect(fleet.counts).toEqual({ needs_you: 2, working: 1, idle: 1, offline: 1 });
    expect(fleet.needsYou.map((i) => i.sessionId)).toEqual(['c', 'a']);
    expect(fleet.review).toEqual({ memories: 2, skills: 1 });
  });

  it('reports a session as newly needing you once, and again when its reason changes', () => {
    const first = rollUp([item('a', 'needs_you', 't1')], { memories: 0, skills: 0 });
    expect(newlyNeedingYou(null, first).map((i) => i.sessionId)).toEqual(['a']);
    expect(newlyNeedingYou(first, first)).toEqual([]);
    const other = rollUp([{ ...item('a', 'needs_you', 't2'), reason: 'Waiting for your input' }], {
      memories: 0,
      skills: 0,
    });
    expect(newlyNeedingYou(first, other).map((i) => i.sessionId)).toEqual(['a']);
  });
});
