import { Workspace, WorkspaceRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const stopWorkspace = defineTool({
  name: 'stop_workspace',
  title: 'Stop a workspace',
  description: 'Stop a running workspace; its sessions go offline until it is started again.',
  ops: ['workspaces.stop'],
  input: { workspace: WorkspaceRef },
  output: Workspace,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, call) => call('workspaces.stop', { workspace: args.workspace }),
  summarize: (w) => `Workspace ${w.name} is ${w.status}.`,
});
