/**
 * A token bucket per workspace for calls from delegated credentials: `burst` calls at once, refilled at
 * `perMinute`. A session that loops (creating, messaging, deleting) is stopped with a tool error it
 * can read, and the operator sees the refusals in the audit log.
 */
export class DelegationRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limits: { perMinute: number; burst: number },
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Takes one call from the workspace's bucket; when empty, the seconds until the next call is allowed. */
  take(workspaceId: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.now();
    const rate = this.limits.perMinute / 60_000;
    const b = this.buckets.get(workspaceId) ?? { tokens: this.limits.burst, at: now };
    b.tokens = Math.min(this.limits.burst, b.tokens + (now - b.at) * rate);
    b.at = now;
    this.buckets.set(workspaceId, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000)) };
  }

  forget(workspaceId: string): void {
    this.buckets.delete(workspaceId);
  }
}
