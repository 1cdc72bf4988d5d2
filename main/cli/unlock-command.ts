import type { Argv } from 'yargs';
import { dataDirOf, type CliContext } from './cli-context';
import { CliError, operatorCall } from './running-app';

/** Where the passphrase comes from and where the prompt goes (the process's stdin and stderr). */
export interface UnlockIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

/**
 * `nexus unlock`: the vault's data key lives in the running app, so the passphrase goes to it over
 * its /api/rpc (as the operator, with the credential in serve.json); with no app running there is
 * nothing to unlock and the command says so (exit 3).
 */
export async function unlockVault(dataDir: string, ctx: UnlockIo & { appRoot: string }): Promise<void> {
  const running = { runningOnly: true } as const;
  const before = await operatorCall(dataDir, ctx.appRoot, 'vault.status', {}, running);
  if (before.state === 'uninitialized')
    throw new CliError('The vault has not been set up yet: open Settings → Vault in the UI.');
  if (before.state === 'unlocked') {
    ctx.out.write('The vault is already unlocked.\n');
    return;
  }
  ctx.err.write(`${before.reason}\n`);
  const passphrase = await readPassphrase(ctx, 'Vault passphrase: ');
  if (!passphrase) throw new CliError('No passphrase given; the vault stays sealed.');
  const after = await operatorCall(dataDir, ctx.appRoot, 'vault.unlock', { passphrase }, running);
  ctx.out.write(`Vault unlocked. ${after.reason}\n`);
}

export const unlockCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command(
    'unlock',
    "unlock the running app's sealed vault: prompts for the passphrase (nothing is echoed), or reads stdin's first line",
    (y) => y.strict(),
    (argv) =>
      unlockVault(dataDirOf(ctx, argv.dataDir as string | undefined), {
        appRoot: ctx.appRoot,
        input: ctx.stdin,
        out: ctx.stdout,
        err: ctx.stderr,
      }),
  );

/** On a terminal: a prompt on stderr and no echo. Piped: the first line of stdin. */
export function readPassphrase(io: UnlockIo, prompt: string): Promise<string> {
  if (io.input.isTTY && io.input.setRawMode) return promptHidden(io, prompt);
  return readFirstLine(io.input);
}

async function readFirstLine(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

function promptHidden(io: UnlockIo, prompt: string): Promise<string> {
  const { input, err } = io;
  return new Promise((done, fail) => {
    let value: string[] = [];
    const finish = (settle: () => void): void => {
      input.removeListener('data', onData);
      input.setRawMode?.(false);
      input.pause();
      err.write('\n');
      settle();
    };
    const onData = (chunk: Buffer | string): void => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(() => done(value.join('')));
        if (ch === '\u0003') return finish(() => fail(new CliError('Cancelled; the vault stays sealed.')));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value.push(ch);
      }
    };
    err.write(prompt);
    input.setRawMode?.(true);
    input.on('data', onData);
    input.resume();
  });
}
