import type Docker from 'dockerode';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import type { TerminalSize } from '../../../shared/terminal';
import { NexusError } from '../../../shared/errors';

// `docker exec` in a container: bounded, demuxed output and stdin written whole; its TTY sibling for a terminal.

export interface ExecOptions {
  /** Written whole to the process's stdin, then stdin is closed (never in argv or env, so never in `docker inspect`). */
  stdin?: string | Buffer;
  env?: Record<string, string>;
  workingDir?: string;
  /** Run as this user instead of the container's. */
  user?: string;
  /** Default 60 s; then the stream is cut and the call fails with `timeout`. */
  timeoutMs?: number;
  /** Bytes kept of each output stream: its first and its last half (default 4 MiB). */
  maxOutput?: number;
  /** Each stderr chunk as it arrives (clone progress). */
  onStderr?: (text: string) => void;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Bytes cut from the middle of each stream to keep it within `maxOutput` (0: whole). */
  cut: { stdout: number; stderr: number };
}

/** A process in a container on a pseudo-terminal: its screen bytes out, keystrokes in, a size. */
export interface TtyProcess {
  output: Readable;
  write(data: string): void;
  resize(size: TerminalSize): Promise<void>;
  /** Drops the connection (the process itself is ended by whoever owns it: docker does not). */
  close(): void;
}

export interface AttachOptions {
  tty: true;
  size: TerminalSize;
  env?: string[];
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * `docker exec -it` in a container: one raw (not multiplexed) stream, resized through the engine.
 * `failure` types an engine error (the caller knows which engine it was, and says it is lost).
 */
export async function attachIn(
  docker: Docker,
  containerId: string,
  argv: string[],
  opts: AttachOptions,
  failure: (e: unknown, action: string) => Error,
): Promise<TtyProcess> {
  const { cols, rows } = opts.size;
  let stream: Duplex;
  let exec: Docker.Exec;
  try {
    exec = await docker.getContainer(containerId).exec({
      Cmd: argv,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
      Env: opts.env ?? [],
    });
    // ConsoleSize (engine API 1.42+) sizes the terminal before the client first draws.
    const start = { hijack: true, stdin: true, Tty: true, ConsoleSize: [rows, cols] };
    stream = (await exec.start(start)) as Duplex;
    // Older engines ignore ConsoleSize; sizing at once keeps the first screen the viewer's size.
    await exec.resize({ h: rows, w: cols });
  } catch (e) {
    throw failure(e, 'open a terminal in the workspace');
  }
  return {
    output: stream,
    write: (data) => void stream.write(data),
    resize: async (size) => {
      try {
        await exec.resize({ h: size.rows, w: size.cols });
      } catch (e) {
        throw failure(e, 'resize the terminal');
      }
    },
    close: () => stream.destroy(),
  };
}

/** `docker exec` in `containerId`: demuxed, each stream bounded, stdin written whole then closed. */
export async function execIn(
  docker: Docker,
  containerId: string,
  argv: string[],
  opts: ExecOptions,
): Promise<ExecResult> {
  const withStdin = opts.stdin !== undefined;
  const exec = await docker.getContainer(containerId).exec({
    Cmd: argv,
    AttachStdin: withStdin,
    AttachStdout: true,
    AttachStderr: true,
    ...(opts.env ? { Env: Object.entries(opts.env).map(([k, v]) => `${k}=${v}`) } : {}),
    ...(opts.workingDir ? { WorkingDir: opts.workingDir } : {}),
    ...(opts.user ? { User: opts.user } : {}),
  });
  const stream = (await exec.start({ hijack: true, stdin: withStdin })) as Duplex;
  const max = opts.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const out = bounded(max);
  const err = bounded(max, opts.onStderr);
  docker.modem.demuxStream(stream, out.sink, err.sink);
  const ended = new Promise<void>((resolve, reject) => {
    stream.on('end', () => resolve());
    stream.on('close', () => resolve());
    stream.on('error', reject);
  });
  if (opts.stdin !== undefined) stream.end(opts.stdin);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stream.destroy();
      reject(new NexusError('timeout', `A command in the workspace did not finish within ${timeoutMs} ms.`));
    }, timeoutMs);
  });
  try {
    await Promise.race([ended, timedOut]);
  } finally {
    clearTimeout(timer);
  }
  const exitCode = await recordedExit(exec, deadline, timeoutMs);
  return {
    exitCode,
    stdout: out.text(),
    stderr: err.text(),
    cut: { stdout: out.cut(), stderr: err.cut() },
  };
}

/**
 * The exit code the engine recorded. The stream ends when the process closes its output, a moment before the engine
 * records the exit: on a loaded machine more than half a second later, and while it runs the engine reports no code
 * (null). An exit not recorded by the command's deadline fails with `timeout`: never a made-up code (a -1 here once
 * read as "tmux lists no windows", and a restart relaunched live agents: docs/sessions.md).
 */
async function recordedExit(exec: Docker.Exec, deadline: number, timeoutMs: number): Promise<number> {
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    const info = await exec.inspect();
    if (!info.Running && typeof info.ExitCode === 'number') return info.ExitCode;
    if (Date.now() >= deadline)
      throw new NexusError('timeout', `A command in the workspace did not finish within ${timeoutMs} ms.`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Keeps the first and the last `max / 2` bytes of a stream; the text says how much was cut between them. */
function bounded(max: number, onText?: (text: string) => void): { sink: PassThrough; text(): string; cut(): number } {
  const sink = new PassThrough();
  const half = Math.max(1, Math.floor(max / 2));
  const head: Buffer[] = [];
  let headSize = 0;
  const tail: Buffer[] = [];
  let tailSize = 0;
  let dropped = 0;
  sink.on('data', (d: Buffer) => {
    onText?.(d.toString('utf8'));
    let chunk = d;
    if (headSize < half) {
      const take = chunk.subarray(0, half - headSize);
      head.push(take);
      headSize += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    tail.push(chunk);
    tailSize += chunk.length;
    // Whole chunks that fall out of the tail go; the last partial one is trimmed when read.
    while (tail.length > 1 && tailSize - (tail[0]?.length ?? 0) >= half) {
      const first = tail.shift() as Buffer;
      tailSize -= first.length;
      dropped += first.length;
    }
  });
  const cut = (): number => dropped + Math.max(0, tailSize - half);
  return {
    sink,
    cut,
    text: () => {
      const n = cut();
      if (n === 0) return Buffer.concat([...head, ...tail]).toString('utf8');
      const t = Buffer.concat(tail);
      return `${Buffer.concat(head).toString('utf8')}\n[… ${n} bytes cut …]\n${t.subarray(t.length - half).toString('utf8')}`;
    },
  };
}
