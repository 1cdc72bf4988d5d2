import type { CliInput } from './cli-context';
import { UsageError } from './exit-codes';

/** The longest message a session takes (sessions.sendMessage, sessions.create's initialMessage). */
const MAX_MESSAGE = 100_000;

/**
 * A message from the command line, or with `-` all of stdin byte for byte (a trailing newline
 * included: what was piped is what the agent gets). Text that is not UTF-8 is refused, not mangled.
 */
export async function messageText(value: string, stdin: CliInput, what: string): Promise<string> {
  const text = value === '-' ? await readAll(stdin, what) : value;
  if (text.length === 0) throw new UsageError(`${what} is empty.`);
  if (text.length > MAX_MESSAGE)
    throw new UsageError(`${what} is ${text.length} characters; the most is ${MAX_MESSAGE}.`);
  return text;
}

async function readAll(stdin: CliInput, what: string): Promise<string> {
  if (stdin.isTTY) throw new UsageError(`${what} is "-" but stdin is a terminal: pipe the text in.`);
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new UsageError(`${what} from stdin is not UTF-8 text.`);
  }
}
