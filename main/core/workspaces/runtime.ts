import type Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import {
  attachIn,
  dockerFailure,
  execIn,
  LOCAL_ENGINE,
  type AttachOptions,
  type ExecOptions,
  type ExecResult,
  type TtyProcess,
} from '../docker';
import type { WorkspaceInfo, WorkspaceTarget } from '../workspace-info';
import type { WorkspaceEvents } from './workspace-events';
import type { WorkspaceRecord, WorkspaceStore } from './workspace-store';

export type { WorkspaceInfo, WorkspaceTarget } from '../workspace-info';

export const workspaceInfo = (
  w: Pick<WorkspaceRecord, 'id' | 'name' | 'containerId' | 'status'> & { bypassPermissions?: boolean; engine?: string },
): WorkspaceInfo => ({
  id: w.id,
  name: w.name,
  containerId: w.containerId,
  running: w.status === 'running' && w.containerId !== null,
  bypassPermissions: w.bypassPermissions ?? false,
  engine: w.engine ?? LOCAL_ENGINE,
});

/**
 * The only way anything reaches a workspace container. `run` is the one queue per workspace
 * (workspace start/stop/delete and session create/delete/converge take turns on it, so a delete
 * waits for the creates before it); `exec` is the one `docker exec`; `info` reads the store and
 * never the engine; `attach` is the interactive sibling of `exec` (a TTY, for the live terminal).
 */
export class WorkspaceRuntime {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: {
      docker: Docker;
      /** The dockerode of a workspace's engine; absent: every workspace is on `docker`. */
      dockerOf?: (engine: string) => Docker;
      store: WorkspaceStore;
      /** Told (`engineLost`) when an exec or attach finds the engine gone. */
      signals?: WorkspaceEvents;
    },
  ) {}

  /** Runs `job` after every job queued before it for this workspace; different workspaces run in parallel. */
  run<T>(workspaceId: string, job: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(workspaceId) ?? Promise.resolve();
    const next = prev.then(job, job);
    const tail = next.catch(() => undefined);
    this.tails.set(workspaceId, tail);
    void tail.then(() => {
      if (this.tails.get(workspaceId) === tail) this.tails.delete(workspaceId);
    });
    return next;
  }

  /** Resolves when every job queued so far has settled. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }

  /** By id or name; throws not_found. */
  info(ref: string): WorkspaceInfo {
    const w = this.find(ref);
    if (!w) throw new NexusError('not_found', `No workspace "${ref}".`);
    return w;
  }

  /** By id or name; null when there is none. */
  find(ref: string): WorkspaceInfo | null {
    const w = this.deps.store.find(ref);
    return w ? workspaceInfo(w) : null;
  }

  list(): WorkspaceInfo[] {
    return this.deps.store.list().map(workspaceInfo);
  }

  /** `docker exec` in the workspace's container: demuxed, bounded output, stdin written whole then closed. */
  async exec(workspace: WorkspaceTarget, argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    if (!workspace.containerId)
      throw new NexusError('conflict', `Workspace "${workspace.name}" has no container to run a command in.`);
    try {
      return await execIn(this.dockerFor(workspace), workspace.containerId, argv, opts);
    } catch (e) {
      throw this.failure(e, 'run a command in the workspace', this.engineOf(workspace));
    }
  }

  /** `docker exec -it`: one raw (not multiplexed) stream, resized through the engine. */
  async attach(workspace: WorkspaceTarget, argv: string[], opts: AttachOptions): Promise<TtyProcess> {
    if (!workspace.containerId)
      throw new NexusError('conflict', `Workspace "${workspace.name}" has no container to open a terminal in.`);
    return attachIn(this.dockerFor(workspace), workspace.containerId, argv, opts, (e, action) =>
      this.failure(e, action, this.engineOf(workspace)),
    );
  }

  private dockerFor(workspace: WorkspaceTarget): Docker {
    const engine = this.engineOf(workspace);
    return engine === LOCAL_ENGINE || !this.deps.dockerOf ? this.deps.docker : this.deps.dockerOf(engine);
  }

  /** The engine of a workspace as the caller named it, else as the store has it (by its container). */
  private engineOf(workspace: WorkspaceTarget): string {
    if (workspace.engine) return workspace.engine;
    if (!workspace.containerId || !this.deps.dockerOf) return LOCAL_ENGINE;
    const id = workspace.containerId;
    return this.deps.store.list().find((w) => w.containerId === id)?.engine ?? LOCAL_ENGINE;
  }

  private failure(e: unknown, action: string, engine: string): NexusError {
    const f = dockerFailure(e, action);
    if (f.code === 'docker_unavailable')
      this.deps.signals?.emit('engineLost', { reason: action, ...(engine !== LOCAL_ENGINE ? { engine } : {}) });
    return f;
  }
}
