import { Workspace, WorkspaceRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const startWorkspace = defineTool({
  name: 'start_workspace',
  title: 'Start a workspace',
  description: 'Start a stopped workspace, re-injecting its secrets. Needs a vault-class token.',
  ops: ['workspaces.start'],
  input: { workspace: WorkspaceRef },
  output: Workspace,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (args, call) => call('workspaces.start', { workspace: args.workspace }),
  summarize: (w) => `Workspace ${w.name} is ${w.status}.`,
});
