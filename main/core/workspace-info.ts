// A workspace as core's modules pass it to each other: a basic of core (like log and events), so the call
// context (handlers.ts) can carry one resolved workspace without the handlers depending on the workspaces folder.

/** A workspace as its users see it, read from the store (never from the engine). */
export interface WorkspaceInfo {
  id: string;
  name: string;
  containerId: string | null;
  /** The store says `running` and there is a container. */
  running: boolean;
  /** Its sessions run in bypassPermissions (the operator's choice at create). */
  bypassPermissions?: boolean;
  /** The Docker engine it lives on (absent: the local one). */
  engine?: string;
}

/** What exec and attach need of a workspace: its container, and the engine that holds it. */
export type WorkspaceTarget = Pick<WorkspaceInfo, 'name' | 'containerId'> & { engine?: string };
