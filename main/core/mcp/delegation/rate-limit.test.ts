import { describe, expect, it } from 'vitest';
import { DelegationRateLimit } from './rate-limit';

describe('the delegation rate limit', () => {
  it('allows a burst per workspace, then says when to retry, and refills over time', () => {
    let now = 0;
    const limit = new DelegationRateLimit({ perMinute: 6, burst: 3 }, () => now);
    expect([1, 2, 3].map(() => limit.take('a').ok)).toEqual([true, true, true]);
    expect(limit.take('a')).toEqual({ ok: false, retryAfterSeconds: 10 });
    expect(limit.take('b').ok).toBe(true);
    now += 10_000;
    expect(limit.take('a').ok).toBe(true);
    expect(limit.take('a').ok).toBe(false);
    limit.forget('a');
    expect(limit.take('a').ok).toBe(true);
  });
});
