import type { Disposable } from './disposable';
import type { Logger } from './log';

type Listener<M, K extends keyof M> = (e: M[K]) => void;

/**
 * A small typed emitter for core-internal reactions (never the redacted UI bus). A failing listener
 * does not stop the others; its error goes to the log.
 */
export class Signals<M extends object> {
  private readonly listeners = new Map<keyof M, Set<Listener<M, never>>>();

  constructor(private readonly log: Pick<Logger, 'warn'>) {}

  on<K extends keyof M>(name: K, listener: Listener<M, K>): Disposable {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as Listener<M, never>);
    return { dispose: () => void set.delete(listener as Listener<M, never>) };
  }

  emit<K extends keyof M>(name: K, e: M[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as Listener<M, K>)(e);
      } catch (error) {
        this.log.warn('a listener failed', { signal: String(name), error });
      }
    }
  }
}
