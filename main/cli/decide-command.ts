import type { Argv } from 'yargs';
import { dataDirOf, type CliContext } from './cli-context';
import { appCall } from './running-app';

/** `nexus allow ID` and `nexus deny ID [--note TEXT]`: answer a permission request `nexus ls` lists. */
export const decideCommands = (ctx: CliContext) => (cli: Argv) =>
  cli
    .command(
      'allow <request>',
      'allow a permission request (its id from nexus ls)',
      (y) => y.strict().positional('request', { type: 'string', describe: 'the request id', demandOption: true }),
      async (argv) => {
        const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
        const { request } = await appCall(dataDir, 'permissions.decide', { id: argv.request, behavior: 'allow' });
        ctx.stdout.write(`Allowed ${request.toolName} (request ${request.id}).\n`);
      },
    )
    .command(
      'deny <request>',
      'deny a permission request (its id from nexus ls)',
      (y) =>
        y
          .strict()
          .positional('request', { type: 'string', describe: 'the request id', demandOption: true })
          .option('note', { type: 'string', requiresArg: true, describe: 'told to the agent as the reason' }),
      async (argv) => {
        const dataDir = dataDirOf(ctx, argv.dataDir as string | undefined);
        const { request } = await appCall(dataDir, 'permissions.decide', {
          id: argv.request,
          behavior: 'deny',
          ...(argv.note ? { note: argv.note } : {}),
        });
        ctx.stdout.write(`Denied ${request.toolName} (request ${request.id})${argv.note ? ', with your note' : ''}.\n`);
      },
    );
