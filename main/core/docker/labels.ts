import { createHash } from 'node:crypto';

/**
 * Ownership labels. Nexus touches only containers carrying `nexus.managed=1` AND its own
 * `nexus.owner` (a hash of its data directory), so two installs, or a test and the app, sharing one
 * engine never touch each other's containers.
 */
export const LABEL = {
  managed: 'nexus.managed',
  owner: 'nexus.owner',
  workspaceId: 'nexus.workspace.id',
  workspaceName: 'nexus.workspace.name',
} as const;

export const ownerIdFor = (dataDir: string): string => createHash('sha256').update(dataDir).digest('hex').slice(0, 16);

export const ownerFilter = (owner: string): string[] => [`${LABEL.managed}=1`, `${LABEL.owner}=${owner}`];

export function workspaceLabels(owner: string, workspace: { id: string; name: string }): Record<string, string> {
  return {
    [LABEL.managed]: '1',
    [LABEL.owner]: owner,
    [LABEL.workspaceId]: workspace.id,
    [LABEL.workspaceName]: workspace.name,
  };
}

/** True only for a container this install created. */
export const isOwnedBy = (labels: Record<string, string> | undefined, owner: string): boolean =>
  labels?.[LABEL.managed] === '1' && labels[LABEL.owner] === owner;
