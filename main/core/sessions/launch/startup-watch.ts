import type { Logger } from '../../log';

/**
 * One timer per launched agent: when it fires and no hook has arrived since the launch (the first
 * one an agent sends is SessionStart), `fire` puts the session in error with what its pane shows
 * (see agent/startup-watchdog.ts). A hook disarms it; no timeout configured = nothing is armed.
 */
export class StartupWatch {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly timeoutMs: number | undefined,
    private readonly fire: (sessionId: string, armedAt: string, timeoutMs: number) => Promise<void>,
    private readonly log: Logger,
  ) {}

  /** `armedAt`: taken before the launch, so a hook that beats the arm still counts. */
  arm(sessionId: string, armedAt: string): void {
    const ms = this.timeoutMs;
    if (!ms) return;
    this.disarm(sessionId);
    const t = setTimeout(() => {
      this.timers.delete(sessionId);
      this.fire(sessionId, armedAt, ms).catch((e: unknown) =>
        this.log.warn('start-up watchdog failed', { sessionId, error: e }),
      );
    }, ms);
    t.unref();
    this.timers.set(sessionId, t);
  }

  disarm(sessionId: string): void {
    clearTimeout(this.timers.get(sessionId));
    this.timers.delete(sessionId);
  }
}
