import type { Argv } from 'yargs';
import { dataDirOf, type CliContext } from './cli-context';
import { connectedApp } from './running-app';

export const rmCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command(
    'rm <session>',
    'delete a session: end its window, remove its worktree (its branch stays unless --delete-branch)',
    (y) =>
      y
        .strict()
        .positional('session', { type: 'string', describe: 'workspace/session, or the session id', demandOption: true })
        .option('delete-branch', { type: 'boolean', describe: 'also delete its branch' })
        .option('force', { type: 'boolean', describe: 'delete the branch even with commits pushed nowhere' }),
    async (argv) => {
      const app = await connectedApp(dataDirOf(ctx, argv.dataDir as string | undefined));
      const session = await app.call('sessions.get', { session: argv.session });
      const done = await app.call('sessions.delete', {
        session: session.id,
        ...(argv.deleteBranch ? { deleteBranch: true } : {}),
        ...(argv.force ? { force: true } : {}),
      });
      const branch = done.branchDeleted ? `its branch ${session.branch} too` : `its branch ${session.branch} stays`;
      ctx.stdout.write(`Deleted ${session.workspaceName}/${session.name} (${branch}).\n`);
    },
  );
