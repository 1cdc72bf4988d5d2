import { describe, expect, it } from 'vitest';
import { rollUp, type SessionAttention } from '../../../../shared/attention';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import { needsYouItems } from './needs-you';

const item = (id: string, level: SessionAttention['level'], reason: string): SessionAttention => ({
  sessionId: id,
  sessionName: id,
  workspaceName: 'w',
  level,
  reason,
  since: '2026-01-01T00:00:00.000Z',
});
const request = (sessionId: string): PermissionRequest => ({
  id: `r-${sessionId}`,
  sessionId,
  workspaceId: 'ws',
  toolName: 'Bash',
  agent: 'claude',
  toolInput: { command: 'true' },
  askedAt: '2026-01-01T00:00:01.000Z',
  expiresAt: '2026-01-01T00:02:01.000Z',
});

describe('needsYouItems', () => {
  const fleet = rollUp([item('a', 'needs_you', 'Permission needed: Bash'), item('b', 'working', 'Working')], {
    memories: 0,
    skills: 0,
  });

  it('lists a session with a pending request even before its state says it waits', () => {
    expect(needsYouItems(fleet, [request('b')]).map((i) => [i.sessionId, i.reason])).toEqual([
      ['a', 'Permission needed: Bash'],
      ['b', 'Permission needed: Bash'],
    ]);
  });

  it('lists each session once, and no session it does not know', () => {
    expect(needsYouItems(fleet, [request('a'), request('a'), request('zzz')]).map((i) => i.sessionId)).toEqual(['a']);
  });
});
