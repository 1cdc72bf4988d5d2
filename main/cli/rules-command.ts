import type { Argv } from 'yargs';
import { RuleAction, RuleInput, RuleTool, RULE_PATTERN_HELP, type Rule } from '../../shared/contract';
import { dataDirOf, type CliContext } from './cli-context';
import { UsageError } from './exit-codes';
import { operatorCall } from './running-app';

const row = (r: Rule): string =>
  [
    r.id.padEnd(36),
    r.action.padEnd(5),
    r.tool.padEnd(5),
    r.scope.padEnd(9),
    JSON.stringify(r.pattern),
    r.note ? `— ${r.note}` : '',
    r.expiresAt ? `(until ${r.expiresAt})` : '',
    r.decided ? `[decided ${r.decided}]` : '',
  ]
    .filter(Boolean)
    .join('  ');

/**
 * `nexus rules list|add|rm`: the approval rules (docs/permissions.md), through the running app or on the data dir
 * directly when none runs. Only the operator's own CLI may add one (an MCP token never can).
 */
export const rulesCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command('rules', 'approval rules for agent tool calls: list, add, rm', (rules) =>
    rules
      .command(
        'list',
        'list your rules and grants, or those in force in a workspace or session (the shipped defaults with --all)',
        (y) =>
          y
            .strict()
            .option('workspace', { type: 'string', describe: "also this workspace's rules" })
            .option('session', { type: 'string', describe: "also this session's grants (its id)" })
            .option('all', { type: 'boolean', describe: 'also the shipped defaults' })
            .option('json', { type: 'boolean', describe: 'print the rules as JSON' }),
        async (argv) => {
          const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
          const { rules: all } = await operatorCall(dataDir, ctx.appRoot, 'rules.list', {
            ...(argv.workspace ? { workspace: argv.workspace } : {}),
            ...(argv.session ? { sessionId: argv.session } : {}),
            // No filter: every rule of every workspace and session, as Settings lists them.
            ...(argv.workspace || argv.session ? {} : { every: true }),
          });
          const shown = argv.all ? all : all.filter((r) => r.scope !== 'default');
          if (argv.json) ctx.stdout.write(`${JSON.stringify({ rules: shown }, null, 2)}\n`);
          else
            ctx.stdout.write(
              shown.length ? `${shown.map(row).join('\n')}\n` : 'No rules of yours (--all: the defaults).\n',
            );
        },
      )
      .command(
        'add <action> <tool> <pattern>',
        `add a rule: action allow|ask|deny, tool ${RuleTool.options.join('|')}; pattern — ${RULE_PATTERN_HELP}`,
        (y) =>
          y
            .strict()
            .positional('action', { type: 'string', demandOption: true })
            .positional('tool', { type: 'string', demandOption: true })
            .positional('pattern', { type: 'string', demandOption: true })
            .option('workspace', { type: 'string', describe: 'only in this workspace (name or id)' })
            .option('session', { type: 'string', describe: 'only for this session (its id)' })
            .option('note', { type: 'string', describe: 'why the rule exists' })
            .option('minutes', { type: 'number', describe: 'the rule ends after this many minutes' }),
        async (argv) => {
          if (!RuleAction.safeParse(argv.action).success)
            throw new UsageError('The action must be allow, ask or deny.');
          if (!RuleTool.safeParse(argv.tool).success)
            throw new UsageError(`The tool must be one of ${RuleTool.options.join(', ')}.`);
          if (argv.workspace && argv.session) throw new UsageError('Name a workspace or a session, not both.');
          const input = RuleInput.safeParse({
            scope: argv.session ? 'session' : argv.workspace ? 'workspace' : 'global',
            ...(argv.workspace ? { workspace: argv.workspace } : {}),
            ...(argv.session ? { sessionId: argv.session } : {}),
            action: argv.action,
            tool: argv.tool,
            pattern: argv.pattern,
            ...(argv.note ? { note: argv.note } : {}),
            ...(argv.minutes !== undefined ? { expiresInMinutes: argv.minutes } : {}),
          });
          if (!input.success) throw new UsageError(input.error.issues.map((i) => i.message).join('; '));
          const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
          const { rule } = await operatorCall(dataDir, ctx.appRoot, 'rules.set', input.data);
          ctx.stdout.write(`${row(rule)}\n`);
        },
      )
      .command(
        'rm <id>',
        'revoke a rule (its id from nexus rules list)',
        (y) => y.strict().positional('id', { type: 'string', describe: 'the rule id', demandOption: true }),
        async (argv) => {
          const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
          const { removed } = await operatorCall(dataDir, ctx.appRoot, 'rules.remove', { id: argv.id });
          ctx.stdout.write(removed ? `Removed rule ${argv.id}.\n` : `No rule ${argv.id} (already gone).\n`);
        },
      )
      .demandCommand(1, 'Name a rules command: list, add or rm.'),
  );
