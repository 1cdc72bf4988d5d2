import type { Argv } from 'yargs';
import { estimateWords } from '../../shared/usage-words';
import { dataDirOf, type CliContext } from './cli-context';
import { connectedApp } from './running-app';

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * `nexus usage`: today's model tokens and their estimated cost, with the caps; `--csv` prints the ledger as the app's
 * export makes it (one row per session and UTC day), for a spreadsheet or a pipe.
 */
export const usageCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command(
    'usage',
    "today's model tokens and their estimated cost; --csv: the ledger per session and day",
    (y) =>
      y
        .strict()
        .option('csv', { type: 'boolean', describe: 'print the usage CSV (one row per session and UTC day)' })
        .option('json', { type: 'boolean', describe: "print today's report as JSON" })
        .conflicts('csv', 'json')
        .example('$0 usage', '')
        .example('$0 usage --csv > usage.csv', ''),
    async (argv) => {
      const app = await connectedApp(dataDirOf(ctx, argv.dataDir as string | undefined));
      if (argv.csv) {
        ctx.stdout.write((await app.call('usage.export', {})).csv);
        return;
      }
      const today = await app.call('usage.get', {});
      if (argv.json) {
        ctx.stdout.write(`${JSON.stringify(today, null, 2)}\n`);
        return;
      }
      const t = today.totals;
      const lines = [
        `Today (UTC): ${count(t.total)} model tokens (${count(t.input)} in, ${count(t.output)} out, ` +
          `${count(t.cacheWrite)} cache write, ${count(t.cacheRead)} cache read) in ${count(t.requests)} requests`,
        `Cost: ${estimateWords(today.estimate)}, at the price table's prices (Settings › Model prices)`,
        ...today.budgets.map(
          (b) =>
            `Cap per ${b.scope}: ${count(b.used)} of ${count(b.maxTokens)}${b.used >= b.maxTokens ? ' (reached)' : ''}`,
        ),
      ];
      ctx.stdout.write(`${lines.join('\n')}\n`);
    },
  );
