import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPassphrase } from './unlock-command';

/** A stand-in terminal: raw-mode calls are recorded, everything written to stderr is kept. */
function terminal() {
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    raw: [] as boolean[],
    setRawMode(raw: boolean) {
      input.raw.push(raw);
      return input;
    },
  });
  const err = new PassThrough();
  let shown = '';
  err.on('data', (d: Buffer) => (shown += d.toString()));
  return { input, err, out: new PassThrough(), shown: () => shown };
}

describe('nexus unlock reads the passphrase', () => {
  it('on a terminal: prompts on stderr, echoes nothing of what is typed, honours backspace, and restores the terminal', async () => {
    const t = terminal();
    const read = readPassphrase(t, 'Vault passphrase: ');
    t.input.write('corr');
    t.input.write('ex\u007fct horse\r');
    await expect(read).resolves.toBe('correct horse');
    expect(t.shown()).toBe('Vault passphrase: \n');
    expect(t.input.raw).toEqual([true, false]);
  });

  it('on a terminal: Ctrl-C cancels and leaves the vault sealed', async () => {
    const t = terminal();
    const read = readPassphrase(t, 'Vault passphrase: ');
    t.input.write('half\u0003');
    await expect(read).rejects.toThrow('Cancelled; the vault stays sealed.');
    expect(t.input.raw).toEqual([true, false]);
  });

  it('piped: takes the first line of stdin without its line ending', async () => {
    const input = new PassThrough();
    const read = readPassphrase({ input, err: new PassThrough(), out: new PassThrough() }, 'unused: ');
    input.end('  spaced passphrase \r\nsecond line\n');
    await expect(read).resolves.toBe('  spaced passphrase ');
  });
});
