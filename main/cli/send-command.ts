import type { Argv } from 'yargs';
import { dataDirOf, type CliContext } from './cli-context';
import { EXIT, UsageError } from './exit-codes';
import { messageText } from './message-text';
import { appCall } from './running-app';

/** Deliveries that did not reach the agent and will not: the command fails (exit 1). */
const UNDELIVERED = new Set(['denied', 'refused', 'dropped', 'expired']);

export const sendCommand = (ctx: CliContext, exit: (code: number) => void) => (cli: Argv) =>
  cli.command(
    // The text is not declared as a positional: yargs would re-read a lone "-" as "" and "-x" as an option.
    'send <session>',
    "send a message to a session's agent (through its inbox, never typed into its terminal)",
    (y) =>
      y
        .usage(
          '$0 send <session> <text>\n\nsend a message to a session’s agent; <text> is the message, - reads it from stdin as is',
        )
        // The one extra word is the text (strictOptions lets it through; it is counted below).
        .strictOptions()
        .positional('session', { type: 'string', describe: 'workspace/session, or the session id', demandOption: true })
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
