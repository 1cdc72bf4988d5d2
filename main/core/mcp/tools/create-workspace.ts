import { Workspace } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

// The delegated credential is the operator's to give (Workspaces → Delegation): not on the MCP surface.
const input = inputFrom('workspaces.create', { omit: ['delegation'] });

export const createWorkspace = defineTool({
  name: 'create_workspace',
  title: 'Create a workspace',
  description:
    'Create a workspace: a container from the worker image holding a clone of the repository. Returns at ' +
    'once with status "creating"; poll get_workspace until it is "running". Needs a vault-class token.',
  ops: ['workspaces.create'],
  input: input.shape,
  output: Workspace,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (args, call) => call('workspaces.create', input.toOp(args)),
  summarize: (w) => `Workspace ${w.name} (${w.id}) is ${w.status}.`,
});
