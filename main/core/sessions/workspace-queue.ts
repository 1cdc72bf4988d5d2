/**
 * One queue per workspace: jobs of a workspace run one at a time (concurrent `git worktree add` in
 * one repository contend on index.lock), jobs of different workspaces run in parallel.
 */
export class WorkspaceQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly counts = new Map<string, number>();

  run<T>(workspaceId: string, job: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(workspaceId) ?? Promise.resolve();
    const next = prev.then(job, job);
    const tail = next.catch(() => undefined);
    this.tails.set(workspaceId, tail);
    this.counts.set(workspaceId, (this.counts.get(workspaceId) ?? 0) + 1);
    void tail.then(() => {
      const n = (this.counts.get(workspaceId) ?? 1) - 1;
      if (n === 0) {
        this.counts.delete(workspaceId);
        this.tails.delete(workspaceId);
      } else this.counts.set(workspaceId, n);
    });
    return next;
  }

  /** Jobs queued or running for a workspace. */
  pending(workspaceId: string): number {
    return this.counts.get(workspaceId) ?? 0;
  }

  /** Resolves when every job queued so far has finished. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
