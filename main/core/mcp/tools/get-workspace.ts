import { Workspace, WorkspaceRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const getWorkspace = defineTool({
  name: 'get_workspace',
  title: 'Get a workspace',
  description: 'Get one workspace by id or name, with its current status reconciled with Docker.',
  ops: ['workspaces.get'],
  input: { workspace: WorkspaceRef },
  output: Workspace,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('workspaces.get', { workspace: args.workspace }),
  summarize: (w) => `Workspace ${w.name} is ${w.status}${w.reason ? ` (${w.reason})` : ''}.`,
});
