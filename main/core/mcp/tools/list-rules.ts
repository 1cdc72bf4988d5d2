import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('rules.list');

export const listRules = defineTool({
  name: 'list_rules',
  title: 'List approval rules',
  description:
    "The approval rules that decide agents' permission requests before the operator sees them: the shipped " +
    'defaults, global rules, and those of a workspace or a session (deny wins over ask, ask over allow; a call ' +
    'no rule decides is asked).',
  ops: ['rules.list'],
  input: input.shape,
  output: operations['rules.list'].output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('rules.list', input.toOp(args)),
  summarize: ({ rules }) =>
    `${rules.length} rule(s), ${rules.filter((r) => r.scope !== 'default').length} of the operator's: ` +
    rules
      .filter((r) => r.scope !== 'default')
      .map((r) => `${r.action} ${r.tool} ${r.pattern} (${r.scope})`)
      .join(', '),
});
