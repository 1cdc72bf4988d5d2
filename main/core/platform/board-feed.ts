import type { Disposable } from '../disposable';

export interface BoardChange {
  taskId: string;
  /** `delegated`: a new ready_for_agent task (what auto-start waits for). */
  kind: 'task' | 'delegated' | 'comment' | 'status';
}

/** Changes to tasks and board comments, from the tool handlers and operator operations, to their followers. */
export class BoardFeed {
  private readonly handlers = new Set<(c: BoardChange) => void>();

  on(handler: (c: BoardChange) => void): Disposable {
    this.handlers.add(handler);
    return { dispose: () => void this.handlers.delete(handler) };
  }

  changed(change: BoardChange): void {
    for (const h of this.handlers) {
      try {
        h(change);
      } catch {
        // A failing follower must not fail the tool call.
      }
    }
  }
}
