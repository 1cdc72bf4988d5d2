import { z } from 'zod';
import { operation } from './define';

export const WorkspaceStatus = z.enum(['creating', 'running', 'stopped', 'error', 'missing']);
export type WorkspaceStatus = z.infer<typeof WorkspaceStatus>;

export const Workspace = z.object({
  id: z.string(),
  name: z.string(),
  repoUrl: z.string(),
  status: WorkspaceStatus,
  reason: z.string().nullable(),
  createdAt: z.string(),
});
export type Workspace = z.infer<typeof Workspace>;

export const workspaceOperations = {
  'workspaces.list': operation({
    summary: 'Every workspace, reconciled with the Docker engine.',
    access: 'read',
    input: z.object({}).strict(),
    output: z.object({ workspaces: z.array(Workspace) }),
  }),
};

export const workspaceEvents = {
  'workspaces.changed': z.object({ workspace: Workspace.nullable(), removedId: z.string().optional() }),
};
