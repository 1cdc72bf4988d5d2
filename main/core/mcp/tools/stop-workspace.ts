import { Workspace } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('workspaces.stop');

export const stopWorkspace = defineTool({
  name: 'stop_workspace',
  title: 'Stop a workspace',
  description: 'Stop a running workspace; its sessions go offline until it is started again.',
  ops: ['workspaces.stop'],
  input: input.shape,
  output: Workspace,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, call) => call('workspaces.stop', input.toOp(args)),
  summarize: (w) => `Workspace ${w.name} is ${w.status}.`,
});
