import type { Disposable } from '../disposable';

/** What core's own modules hear from the workspaces module (typed; never the redacted UI bus). */
export interface WorkspaceEventMap {
  /** The workspace moved into `running` (a start, a finished create, a container started outside Nexus). */
  started: { workspaceId: string };
  /** The workspace is deleted; its sessions went with it. */
  removed: { workspaceId: string };
  /** A call found the Docker engine gone (the watch then reconnects). */
  engineLost: { reason: string; /** Which engine (absent: the local one). */ engine?: string };
}

type Listener<K extends keyof WorkspaceEventMap> = (e: WorkspaceEventMap[K]) => void;

/** A small typed emitter for core-internal reactions; a failing listener does not stop the others. */
export class WorkspaceEvents {
  private readonly listeners = new Map<keyof WorkspaceEventMap, Set<Listener<never>>>();

  on<K extends keyof WorkspaceEventMap>(name: K, listener: Listener<K>): Disposable {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as Listener<never>);
    return { dispose: () => void set.delete(listener as Listener<never>) };
  }

  emit<K extends keyof WorkspaceEventMap>(name: K, e: WorkspaceEventMap[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as Listener<K>)(e);
      } catch {
        // One listener's failure is its own.
      }
    }
  }
}
