import type Docker from 'dockerode';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import type { TerminalSize } from '../../../shared/terminal';
import { NexusError } from '../../../shared/errors';
import { dockerFailure } from './engine';
import { LOCAL_ENGINE } from './engine-port';
import type { WorkspaceEvents } from './workspace-events';
import type { WorkspaceRecord, WorkspaceStore } from './workspace-store';

/** A workspace as its users see it, read from the store (never from the engine). */
export interface WorkspaceInfo {
  id: string;
  name: string;
  containerId: string | null;
  /** The store says `running` and there is a container. */
  running: boolean;
  /** Its sessions run in bypassPermissions (the operator's choice at create). */
  bypassPermissions?: boolean;
  /** The Docker engine it lives on (absent: the local one). */
  engine?: string;
}

/** What exec and attach need of a workspace: its container, and the engine that holds it. */
export type WorkspaceTarget = Pick<WorkspaceInfo, 'name' | 'containerId'> & { engine?: string };

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

export const workspaceInfo = (
  w: Pick<WorkspaceRecord, 'id' | 'name' | 'containerId' | 'status'> & { bypassPermissions?: boolean; engine?: string },
): WorkspaceInfo => ({
  id: w.id,
  name: w.name,
  containerId: w.containerId,
  running: w.status === 'running' && w.containerId !== null,
  bypassPermissions: w.bypassPermissions ?? false,
  engine: w.engine ?? LOCAL_ENGINE,
});

/**
 * The only way anything reaches a workspace container. `run` is the one queue per workspace
 * (workspace start/stop/delete and session create/delete/converge take turns on it, so a delete
 * waits for the creates before it); `exec` is the one `docker exec`; `info` reads the store and
 * never the engine; `attach` is the interactive sibling of `exec` (a TTY, for the live terminal).
 */
export class WorkspaceRuntime {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: {
      docker: Docker;
      /** The dockerode of a workspace's engine; absent: every workspace is on `docker`. */
      dockerOf?: (engine: string) => Docker;
      store: WorkspaceStore;
      /** Told (`engineLost`) when an exec or attach finds the engine gone. */
      signals?: WorkspaceEvents;
    },
  ) {}

  /** Runs `job` after every job queued before it for this workspace; different workspaces run in parallel. */
  run<T>(workspaceId: string, job: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(workspaceId) ?? Promise.resolve();
    const next = prev.then(job, job);
    const tail = next.catch(() => undefined);
    this.tails.set(workspaceId, tail);
    void tail.then(() => {
      if (this.tails.get(workspaceId) === tail) this.tails.delete(workspaceId);
    });
    return next;
  }

  /** Resolves when every job queued so far has settled. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }

  /** By id or name; throws not_found. */
  info(ref: string): WorkspaceInfo {
    const w = this.find(ref);
    if (!w) throw new NexusError('not_found', `No workspace "${ref}".`);
    return w;
  }

  /** By id or name; null when there is none. */
  find(ref: string): WorkspaceInfo | null {
    const w = this.deps.store.find(ref);
    return w ? workspaceInfo(w) : null;
  }

  list(): WorkspaceInfo[] {
    return this.deps.store.list().map(workspaceInfo);
  }

  /** `docker exec` in the workspace's container: demuxed, bounded output, stdin written whole then closed. */
  async exec(workspace: WorkspaceTarget, argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    if (!workspace.containerId)
      throw new NexusError('conflict', `Workspace "${workspace.name}" has no container to run a command in.`);
    try {
      return await execIn(this.dockerFor(workspace), workspace.containerId, argv, opts);
    } catch (e) {
      throw this.failure(e, 'run a command in the workspace', this.engineOf(workspace));
    }
  }

  /** `docker exec -it`: one raw (not multiplexed) stream, resized through the engine. */
  async attach(workspace: WorkspaceTarget, argv: string[], opts: AttachOptions): Promise<TtyProcess> {
    if (!workspace.containerId)
      throw new NexusError('conflict', `Workspace "${workspace.name}" has no container to open a terminal in.`);
    const { cols, rows } = opts.size;
    let stream: Duplex;
    let exec: Docker.Exec;
    try {
      exec = await this.dockerFor(workspace)
        .getContainer(workspace.containerId)
        .exec({
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
      throw this.failure(e, 'open a terminal in the workspace', this.engineOf(workspace));
    }
    return {
      output: stream,
      write: (data) => void stream.write(data),
      resize: async (size) => {
        try {
          await exec.resize({ h: size.rows, w: size.cols });
        } catch (e) {
          throw this.failure(e, 'resize the terminal', this.engineOf(workspace));
        }
      },
      close: () => stream.destroy(),
    };
  }

  private dockerFor(workspace: WorkspaceTarget): Docker {
    const engine = this.engineOf(workspace);
    return engine === LOCAL_ENGINE || !this.deps.dockerOf ? this.deps.docker : this.deps.dockerOf(engine);
  }

  /** The engine of a workspace as the caller named it, else as the store has it (by its container). */
  private engineOf(workspace: WorkspaceTarget): string {
    if (workspace.engine) return workspace.engine;
    if (!workspace.containerId || !this.deps.dockerOf) return LOCAL_ENGINE;
    const id = workspace.containerId;
    return this.deps.store.list().find((w) => w.containerId === id)?.engine ?? LOCAL_ENGINE;
  }

  private failure(e: unknown, action: string, engine: string): NexusError {
    const f = dockerFailure(e, action);
    if (f.code === 'docker_unavailable')
      this.deps.signals?.emit('engineLost', { reason: action, ...(engine !== LOCAL_ENGINE ? { engine } : {}) });
    return f;
  }
}

async function execIn(docker: Docker, containerId: string, argv: string[], opts: ExecOptions): Promise<ExecResult> {
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
  let info = await exec.inspect();
  // The stream can end a moment before the engine records the exit code.
  for (let i = 0; info.Running && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 10));
    info = await exec.inspect();
  }
  return {
    exitCode: info.ExitCode ?? -1,
    stdout: out.text(),
    stderr: err.text(),
    cut: { stdout: out.cut(), stderr: err.cut() },
  };
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
