import { PassThrough } from 'node:stream';
import type { CliContext } from './cli-context';

/** A stand-in process for runCli in tests: what it writes is kept; stdin is a stream the test feeds (or a terminal). */
export function testContext(over: Partial<CliContext> & { tty?: boolean } = {}) {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const stdin = Object.assign(new PassThrough(), over.tty ? { isTTY: true, setRawMode: () => undefined } : {});
  const ctx: CliContext = {
    appRoot: process.cwd(),
    defaultDataDir: '/nonexistent/nexus-data',
    defaultPort: 4780,
    env: {},
    home: '/nonexistent',
    platform: 'linux',
    node: process.execPath,
    nodeVersion: process.version,
    uid: process.getuid?.() ?? 0,
    stdin,
    stdout: Object.assign(out, { columns: 100 }),
    stderr: err,
    onSignal: () => () => undefined,
    ...over,
  };
  return { ctx, stdin, stdout: () => stdout, stderr: () => stderr };
}
