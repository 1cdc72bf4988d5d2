import type { EngineLost } from '../docker';
import { Signals } from '../signals';

/** What core's own modules hear from the workspaces module (typed; never the redacted UI bus). */
export interface WorkspaceEventMap {
  /** The workspace moved into `running` (a start, a finished create, a container started outside Nexus). */
  started: { workspaceId: string };
  /** The workspace is deleted; its sessions went with it. */
  removed: { workspaceId: string };
  /**
   * The kernel's OOM killer killed a process in the workspace's container (Docker's `oom` event: the
   * container's memory cgroup hit `docker.memoryBytes`); the sessions module looks for agents it took.
   */
  outOfMemory: { workspaceId: string };
  /** A call found the Docker engine gone (the watch then reconnects). */
  engineLost: EngineLost;
}

/** The workspaces module's internal events; a failing listener is logged and does not stop the others. */
export class WorkspaceEvents extends Signals<WorkspaceEventMap> {}
