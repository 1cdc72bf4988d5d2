import type { Argv } from 'yargs';
import { dataDirOf, type CliContext } from './cli-context';
import { EXIT, UsageError } from './exit-codes';
import { messageText } from './message-text';
import { appCall } from './running-app';

/** Deliveries that did not reach the agent and will not: the command fails (exit 1). */
const UNDELIVERED = new Set(['denied', 'refused', 'dropped', 'expired']);

export const sendCommand = (ctx: CliContext, exit: (code: number) => void) => (cli: Argv) =>
  cli.command(
    'send <session> <text>',
    "send a message to a session's agent (through its inbox, never typed into its terminal)",
    (y) =>
      y
        // The text is read from the raw positionals: yargs would turn a lone "-" into "" (strictOptions lets it through).
        .strictOptions()
        .positional('session', { type: 'string', describe: 'workspace/session, or the session id', demandOption: true })
        .positional('text', { type: 'string', describe: 'the message; - reads it from stdin as is' })
        .option('json', { type: 'boolean', describe: 'print the delivery as JSON' })
        .example('$0 send web/fix-login "Also add a test"', '')
        .example('git diff | $0 send web/fix-login -', ''),
    async (argv) => {
      const rest = argv._.slice(1).map(String);
      if (rest.length !== 1) throw new UsageError('nexus send takes one text (quote it), or - to read it from stdin.');
      const text = await messageText(rest[0] as string, ctx.stdin, 'The message');
      const sent = await appCall(dataDirOf(ctx, argv.dataDir as string | undefined), 'sessions.sendMessage', {
        session: argv.session,
        text,
      });
      ctx.stdout.write(argv.json ? `${JSON.stringify(sent, null, 2)}\n` : `${sent.status}: ${sent.note}\n`);
      if (UNDELIVERED.has(sent.status)) exit(EXIT.failed);
    },
  );
