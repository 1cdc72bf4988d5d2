import type { Argv } from 'yargs';
import { AgentKind } from '../../shared/contract';
import { dataDirOf, type CliContext } from './cli-context';
import { messageText } from './message-text';
import { appCall } from './running-app';

export const newCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command(
    'new <workspace> <name>',
    'create a session (a worktree and a window running the agent) in a workspace',
    (y) =>
      y
        .strict()
        .positional('workspace', { type: 'string', describe: 'workspace name or id', demandOption: true })
        .positional('name', { type: 'string', describe: 'session name (lowercase, digits, . _ -)', demandOption: true })
        .option('agent', {
          type: 'string',
          describe: "the agent kind (see Settings → Agent; default: the workspace's)",
        })
        .option('message', {
          alias: 'm',
          type: 'string',
          requiresArg: true,
          describe: 'its first message; - reads it from stdin as is',
        })
        .option('json', { type: 'boolean', describe: 'print the new session as JSON' })
        .example('$0 new web fix-login -m "The login form rejects valid emails"', '')
        .example('$0 new web refactor --agent codex -m - < task.md', ''),
    async (argv) => {
      const initialMessage =
        argv.message === undefined ? undefined : await messageText(argv.message, ctx.stdin, 'The first message');
      const session = await appCall(dataDirOf(ctx, argv.dataDir as string | undefined), 'sessions.create', {
        workspace: argv.workspace,
        name: argv.name,
        ...(argv.agent ? { agent: AgentKind.parse(argv.agent) } : {}),
        ...(initialMessage !== undefined ? { initialMessage } : {}),
      });
      const ref = `${session.workspaceName}/${session.name}`;
      ctx.stdout.write(
        argv.json
          ? `${JSON.stringify(session, null, 2)}\n`
          : `Created ${ref} (${session.agent}, id ${session.id}), ${session.status}. Watch it: nexus attach ${ref}\n`,
      );
    },
  );
