import { Workspace } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('workspaces.start');

export const startWorkspace = defineTool({
  name: 'start_workspace',
  title: 'Start a workspace',
  description: 'Start a stopped workspace, re-injecting its secrets. Needs a vault-class token.',
  ops: ['workspaces.start'],
  input: input.shape,
  output: Workspace,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (args, call) => call('workspaces.start', input.toOp(args)),
  summarize: (w) => `Workspace ${w.name} is ${w.status}.`,
});
