import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('workspaces.delete');

export const deleteWorkspace = defineTool({
  name: 'delete_workspace',
  title: 'Delete a workspace',
  description:
    'Delete a workspace: its container, its volume and its record. Refused while one of its sessions is being created.',
  ops: ['workspaces.delete'],
  input: input.shape,
  output: operations['workspaces.delete'].output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: (args, call) => call('workspaces.delete', input.toOp(args)),
  summarize: (r) => `Workspace ${r.id} deleted.`,
});
