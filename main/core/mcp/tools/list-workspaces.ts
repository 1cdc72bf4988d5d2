import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('workspaces.list');

export const listWorkspaces = defineTool({
  name: 'list_workspaces',
  title: 'List workspaces',
  description: 'List every Nexus workspace (a Docker container holding a clone of a repository) with its status.',
  ops: ['workspaces.list'],
  input: input.shape,
  output: operations['workspaces.list'].output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('workspaces.list', input.toOp(args)),
  summarize: ({ workspaces }) =>
    workspaces.length === 0
      ? 'No workspaces.'
      : `${workspaces.length} workspace(s): ${workspaces.map((w) => `${w.name} (${w.status})`).join(', ')}.`,
});
