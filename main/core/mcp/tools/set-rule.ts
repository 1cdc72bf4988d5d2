import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('rules.set');

/** Operator class only (the contract says so): no MCP token, and so no session, may widen its own permissions. */
export const setRule = defineTool({
  name: 'set_rule',
  title: 'Add an approval rule',
  description:
    'Add an allow, ask or deny rule for agent tool calls, globally, in one workspace or for one session. Only the ' +
    'operator may: MCP tokens of every class are refused.',
  ops: ['rules.set'],
  input: input.shape,
  output: operations['rules.set'].output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: (args, call) => call('rules.set', input.toOp(args)),
  summarize: ({ rule }) => `Added rule ${rule.id}: ${rule.action} ${rule.tool} ${rule.pattern} (${rule.scope}).`,
});
