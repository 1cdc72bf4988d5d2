import { errorMessage } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import type { OutboxRow, OutboxStore } from './outbox-store';
import { TrackerError, type Tracker } from './tracker-port';

export interface OutboxSenderDeps {
  outbox: Pick<OutboxStore, 'heads' | 'attempt' | 'sent' | 'failed'>;
  /** The workspace's tracker with its secret; throws (vault locked, no settings) like a tracker that is down. */
  trackerFor(workspaceId: string): Promise<Tracker>;
  /** A row was sent or failed: its card changes. */
  changed(taskId: string): void;
  log: Logger;
  /** The first retry's delay; each failure doubles it up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
}

/** The text a row's request carries, so a retry after a lost answer can find it on the issue. */
export const markerOf = (id: string): string => `nexus:${id}`;

/**
 * Sends the outbox: each issue's rows one at a time in the order they were stored (a row waits for the one before
 * it), issues of different workspaces side by side. A failure keeps the row and tries again after a backoff that
 * doubles up to `retryMaxMs`. Exactly once: `attempts` is committed before the request; a row that already had an
 * attempt is first looked for on the issue by its marker (the earlier request may have landed and only its answer
 * been lost, as when core is killed mid-send), and marked sent if it is there.
 */
export class OutboxSender implements Disposable {
  private running = false;
  private again = false;
  private disposed = false;
  private timer: NodeJS.Timeout | null = null;
  /** Failures in a row per outbox row, for the backoff (a restart begins again at the base delay). */
  private readonly failures = new Map<string, number>();

  constructor(private readonly d: OutboxSenderDeps) {}

  /** Something was stored or may go now: a pass soon (after the storing transaction has committed). */
  kick(): void {
    if (this.disposed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), 0);
  }

  private async pass(): Promise<void> {
    this.timer = null;
    this.running = true;
    try {
      do {
        this.again = false;
        for (;;) {
          const now = Date.now();
          const due = this.d.outbox.heads().filter((r) => Date.parse(r.next_at) <= now);
          if (due.length === 0 || this.disposed) break;
          const byWorkspace = new Map<string, OutboxRow[]>();
          for (const r of due) byWorkspace.set(r.workspace_id, [...(byWorkspace.get(r.workspace_id) ?? []), r]);
          await Promise.all(
            [...byWorkspace.values()].map(async (rows) => {
              for (const r of rows) if (!this.disposed) await this.send(r);
            }),
          );
        }
      } while (this.again && !this.disposed);
    } catch (e) {
      this.d.log.warn('tracker outbox pass failed', { error: e });
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  /** A timer for the earliest row that waits for its retry. */
  private schedule(): void {
    if (this.disposed || this.timer) return;
    let next = Infinity;
    try {
      for (const r of this.d.outbox.heads()) next = Math.min(next, Date.parse(r.next_at));
    } catch {
      return; // the database is closing
    }
    if (next === Infinity) return;
    this.timer = setTimeout(() => void this.pass(), Math.max(0, next - Date.now()));
    this.timer.unref();
  }

  private async send(row: OutboxRow): Promise<void> {
    const marker = markerOf(row.id);
    try {
      const tracker = await this.d.trackerFor(row.workspace_id);
      if (row.attempts > 0) {
        const earlier = await tracker.findComment(row.issue, marker);
        if (earlier.found) {
          this.d.log.info('tracker outbox row found delivered by an earlier attempt', { id: row.id, issue: row.issue });
          return this.done(row, earlier.remoteId);
        }
      }
      this.d.outbox.attempt(row.id);
      const text = `${row.body} [${marker}]`;
      if (row.kind === 'status' && row.status) await tracker.setStatus(row.issue, row.status, text);
      else return this.done(row, await tracker.comment(row.issue, text));
      this.done(row, null);
    } catch (e) {
      const n = (this.failures.get(row.id) ?? 0) + 1;
      this.failures.set(row.id, n);
      const delay = Math.min(this.d.retryMaxMs, this.d.retryBaseMs * 2 ** Math.min(n - 1, 20));
      const refused = e instanceof TrackerError && e.refused;
      this.d.outbox.failed(row.id, errorMessage(e), refused, new Date(Date.now() + delay));
      this.d.log.info('tracker outbox row not sent; will retry', { id: row.id, issue: row.issue, delay, error: e });
      this.d.changed(row.task_id);
    }
  }

  private done(row: OutboxRow, remoteId: string | null): void {
    this.failures.delete(row.id);
    this.d.outbox.sent(row.id, remoteId);
    this.d.changed(row.task_id);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
