import { Workspace } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('workspaces.get');

export const getWorkspace = defineTool({
  name: 'get_workspace',
  title: 'Get a workspace',
  description: 'Get one workspace by id or name, with its current status reconciled with Docker.',
  ops: ['workspaces.get'],
  input: input.shape,
  output: Workspace,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('workspaces.get', input.toOp(args)),
  summarize: (w) => `Workspace ${w.name} is ${w.status}${w.reason ? ` (${w.reason})` : ''}.`,
});
