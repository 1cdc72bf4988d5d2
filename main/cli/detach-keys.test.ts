import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { TERMINAL_MAX_INPUT } from '../../shared/terminal';
import { inputMessages, terminalSize } from './attach-command';
import { detachKeys } from './detach-keys';
import { messageText } from './message-text';

describe('nexus attach: keys and sizes', () => {
  it('detaches on Ctrl-b d, also when the two keys arrive in separate reads, after sending what came before', () => {
    expect(detachKeys()('ls\r\u0002d')).toEqual({ forward: 'ls\r', detach: true });
    const keys = detachKeys();
    expect(keys('abc\u0002')).toEqual({ forward: 'abc', detach: false });
    expect(keys('d')).toEqual({ forward: '', detach: true });
  });

  it('sends one Ctrl-b for Ctrl-b Ctrl-b, and Ctrl-b with any other key as typed', () => {
    const keys = detachKeys();
    expect(keys('\u0002\u0002')).toEqual({ forward: '\u0002', detach: false });
    expect(keys('\u0002x\u0003')).toEqual({ forward: '\u0002x\u0003', detach: false });
    expect(keys('d')).toEqual({ forward: 'd', detach: false });
  });

  it('splits a long paste into messages the host accepts, never inside an emoji', () => {
    const paste = `${'a'.repeat(TERMINAL_MAX_INPUT - 1)}😀${'b'.repeat(10)}`;
    const parts = inputMessages(paste).map((m) => JSON.parse(m) as { type: string; data: string });
    expect(parts.every((p) => p.type === 'input' && p.data.length <= TERMINAL_MAX_INPUT)).toBe(true);
    expect(parts.map((p) => p.data).join('')).toBe(paste);
    expect(parts[1]?.data.startsWith('😀')).toBe(true);
  });

  it('sends the terminal’s size, 80×24 when it has none, within what the host takes', () => {
    expect(terminalSize(Object.assign(new PassThrough(), { columns: 132, rows: 43 }))).toEqual({ cols: 132, rows: 43 });
    expect(terminalSize(new PassThrough())).toEqual({ cols: 80, rows: 24 });
    expect(terminalSize(Object.assign(new PassThrough(), { columns: 9999, rows: 1 }))).toEqual({ cols: 500, rows: 2 });
  });
});

describe('a message given as "-"', () => {
  it('is all of stdin byte for byte: leading spaces, CRLF, tabs, non-ASCII and the trailing newline kept', async () => {
    const text = '  first line\r\n\tsecond “line” — ünïcødé 😀\n\n';
    const stdin = new PassThrough();
    stdin.end(Buffer.from(text, 'utf8'));
    await expect(messageText('-', stdin, 'The message')).resolves.toBe(text);
    await expect(messageText('as typed -', new PassThrough(), 'The message')).resolves.toBe('as typed -');
  });
});
