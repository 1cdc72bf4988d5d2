/** Anything that holds a process, socket, timer or subscription returns one of these. */
export interface Disposable {
  dispose(): void | Promise<void>;
}

export const toDisposable = (fn: () => void | Promise<void>): Disposable => ({ dispose: fn });

/** Disposes in reverse order of registration; keeps going when one fails and reports the first error. */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      void item.dispose();
      return item;
    }
    this.items.push(item);
    return item;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    let first: unknown;
    for (const item of this.items.reverse()) {
      try {
        await item.dispose();
      } catch (e) {
        first ??= e;
      }
    }
    this.items.length = 0;
    if (first) throw first;
  }
}
