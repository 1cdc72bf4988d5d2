import { describe, expect, it } from 'vitest';
import { deriveAttention } from './attention';
import { clockTime, limitedReason } from './attention-words';

describe('a session held by its provider’s usage limit', () => {
  const session = { id: 's', name: 'fix', workspaceName: 'api', status: 'running' as const, reason: null };
  const at = '2026-12-06T01:00:00.000Z';

  it('is working, "Limited until HH:MM", never an error nor Needs you', () => {
    const until = '2026-12-06T01:20:30.000Z';
    for (const agentState of ['working', 'idle', 'waiting_input'] as const) {
      const a = deriveAttention({
        session: { ...session, limitedUntil: until },
        health: { agentState, at, message: 'API Error: 429 rate limited' },
        workspaceRunning: true,
      });
      expect(a).toMatchObject({ level: 'working', reason: limitedReason(until), limitedUntil: until });
    }
    expect(limitedReason(until)).toMatch(/^Limited until \d\d:\d\d$/);
  });

  it('a permission asked still needs the operator; no limit, no word of it', () => {
    const asked = deriveAttention({
      session: { ...session, limitedUntil: '2026-12-06T01:20:00.000Z' },
      health: { agentState: 'waiting_permission', at, message: 'Claude needs your permission to use Bash' },
      workspaceRunning: true,
    });
    expect(asked).toMatchObject({ level: 'needs_you', reason: 'Permission needed: Bash' });
    expect(asked.limitedUntil).toBeUndefined();
    const plain = deriveAttention({
      session: { ...session, limitedUntil: null },
      health: { agentState: 'working', at, message: null },
      workspaceRunning: true,
    });
    expect(plain).toEqual({
      sessionId: 's',
      sessionName: 'fix',
      workspaceName: 'api',
      level: 'working',
      reason: 'Working',
      since: at,
    });
  });

  it('says the time rounded up to the minute, on this machine’s clock', () => {
    const d = new Date(2026, 11, 6, 14, 5, 0, 0);
    expect(clockTime(d.toISOString())).toBe('14:05');
    expect(clockTime(new Date(d.getTime() + 1000).toISOString())).toBe('14:06');
    expect(clockTime(new Date(2026, 11, 6, 9, 59, 30).toISOString())).toBe('10:00');
  });
});
