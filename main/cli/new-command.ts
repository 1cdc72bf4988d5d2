import type { Argv } from 'yargs';
import { AgentKind, IssueRef, type Session } from '../../shared/contract';
import { AGENT_KINDS } from '../core/agents';
import { dataDirOf, type CliContext } from './cli-context';
import { UsageError } from './exit-codes';
import { messageText } from './message-text';
import { appCall } from './running-app';

export const newCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command(
    'new <workspace> [name]',
    'create a session (a worktree and a window running the agent) in a workspace',
    (y) =>
      y
        .strict()
        .positional('workspace', { type: 'string', describe: 'workspace name or id', demandOption: true })
        .positional('name', {
          type: 'string',
          describe: 'session name (lowercase, digits, . _ -); with --issue, default issue-<n>-<title words>',
        })
        .option('agent', {
          type: 'string',
          // The kinds this build's registry runs (core refuses any other the same way).
          choices: AGENT_KINDS,
          describe: "the agent kind (default: the workspace's)",
        })
        .option('message', {
          alias: 'm',
          type: 'string',
          requiresArg: true,
          describe: 'its first message; - reads it from stdin as is',
        })
        .option('issue', {
          type: 'string',
          requiresArg: true,
          conflicts: 'message',
          describe: "start from an issue of the workspace's tracker: its title and body are the first message",
        })
        .option('json', { type: 'boolean', describe: 'print the new session as JSON' })
        .example('$0 new web fix-login -m "The login form rejects valid emails"', '')
        .example(`$0 new web refactor --agent ${AGENT_KINDS.at(-1) ?? ''} -m - < task.md`, '')
        .example('$0 new web --issue 42', ''),
    async (argv) => {
      const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
      const agent = argv.agent ? { agent: AgentKind.parse(argv.agent) } : {};
      let session: Session;
      if (argv.issue !== undefined) {
        const issue = IssueRef.safeParse(argv.issue);
        if (!issue.success) throw new UsageError(`--issue takes an issue number (42 or #42), not "${argv.issue}".`);
        session = await appCall(dataDir, 'tracker.startSession', {
          workspace: argv.workspace,
          issue: issue.data,
          ...(argv.name ? { name: argv.name } : {}),
          ...agent,
        });
      } else {
        if (argv.name === undefined) throw new UsageError('Name the session, or start it from an issue (--issue).');
        const initialMessage =
          argv.message === undefined ? undefined : await messageText(argv.message, ctx.stdin, 'The first message');
        session = await appCall(dataDir, 'sessions.create', {
          workspace: argv.workspace,
          name: argv.name,
          ...agent,
          ...(initialMessage !== undefined ? { initialMessage } : {}),
        });
      }
      const ref = `${session.workspaceName}/${session.name}`;
      ctx.stdout.write(
        argv.json
          ? `${JSON.stringify(session, null, 2)}\n`
          : `Created ${ref} (${session.agent}, id ${session.id}), ${session.status}. Watch it: nexus attach ${ref}\n`,
      );
    },
  );
