import { spawn } from 'node:child_process';

/**
 * A real pseudo-terminal (python3's pty module; node-pty is not installed): the program runs with a
 * tty of cols×rows on stdin/stdout/stderr, `write` types keys into it, `output` is its screen bytes.
 */
const RELAY = `
import os, pty, sys, select, struct, fcntl, termios
cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    os.execvp(argv[0], argv)
inputs = [fd, 0]
while True:
    ready, _, _ = select.select(inputs, [], [])
    if 0 in ready:
        data = os.read(0, 65536)
        if data: os.write(fd, data)
        else: inputs.remove(0)
    if fd in ready:
        try: data = os.read(fd, 65536)
        except OSError: break
        if not data: break
        sys.stdout.buffer.write(data); sys.stdout.buffer.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

export interface PtyProcess {
  write(keys: string): void;
  /** Everything drawn so far, as text. */
  output(): string;
  waitFor(text: string | RegExp, ms?: number): Promise<void>;
  /** The program's exit code. */
  exited: Promise<number>;
  kill(): void;
}

export function inPty(
  argv: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; cols?: number; rows?: number },
): PtyProcess {
  const child = spawn('python3', ['-c', RELAY, String(opts.cols ?? 100), String(opts.rows ?? 30), ...argv], {
    cwd: opts.cwd,
    env: { ...process.env, TERM: 'xterm-256color', ...opts.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let text = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    text += d.toString('utf8');
    for (const w of waiters) w();
  });
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return {
    write: (keys) => void child.stdin.write(keys),
    output: () => text,
    waitFor: (needle, ms = 60_000) =>
      new Promise<void>((ok, fail) => {
        const seen = (): boolean => (typeof needle === 'string' ? text.includes(needle) : needle.test(text));
        const check = (): void => {
          if (!seen()) return;
          waiters.delete(check);
          clearTimeout(timer);
          ok();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          fail(new Error(`the terminal never showed ${String(needle)}; it showed:\n${text.slice(-3000)}`));
        }, ms);
        waiters.add(check);
        check();
      }),
    exited,
    kill: () => void child.kill('SIGKILL'),
  };
}
