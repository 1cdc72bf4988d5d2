import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import { NexusError } from '../../../shared/errors';

/**
 * What sessions need from workspaces: find one, and run a command in its container. The
 * workspaces service implements WorkspaceDirectory; DockerExec runs commands through dockerode.
 */
export interface WorkspaceInfo {
  id: string;
  name: string;
  containerId: string | null;
  running: boolean;
}

export interface WorkspaceDirectory {
  /** By id or name; throws not_found. */
  resolve(ref: string): WorkspaceInfo | Promise<WorkspaceInfo>;
  get(id: string): WorkspaceInfo | null | Promise<WorkspaceInfo | null>;
  list(): WorkspaceInfo[] | Promise<WorkspaceInfo[]>;
}

export interface ExecOptions {
  stdin?: string | Buffer;
  env?: Record<string, string>;
  workingDir?: string;
  /** Run as this user instead of the container's (set-up steps in tests use root). */
  user?: string;
  timeoutMs?: number;
}
export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface ContainerExec {
  exec(containerId: string, cmd: string[], opts?: ExecOptions): Promise<ExecResult>;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

/** docker exec with demuxed, bounded output and stdin that is written whole, then closed. */
export class DockerExec implements ContainerExec {
  constructor(private readonly docker: Docker) {}

  async exec(containerId: string, cmd: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const container = this.docker.getContainer(containerId);
    const exec = await container.exec({
      Cmd: cmd,
      AttachStdin: opts.stdin !== undefined,
      AttachStdout: true,
      AttachStderr: true,
      ...(opts.env ? { Env: Object.entries(opts.env).map(([k, v]) => `${k}=${v}`) } : {}),
      ...(opts.workingDir ? { WorkingDir: opts.workingDir } : {}),
      ...(opts.user ? { User: opts.user } : {}),
    });
    const stream = await exec.start({ hijack: true, stdin: opts.stdin !== undefined });
    const out = collect();
    const err = collect();
    this.docker.modem.demuxStream(stream, out.sink, err.sink);
    const ended = new Promise<void>((resolve, reject) => {
      stream.on('end', () => resolve());
      stream.on('close', () => resolve());
      stream.on('error', reject);
    });
    if (opts.stdin !== undefined) stream.end(opts.stdin);
    const timeoutMs = opts.timeoutMs ?? 60_000;
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
    return { exitCode: info.ExitCode ?? -1, stdout: out.text(), stderr: err.text() };
  }
}

function collect(): { sink: PassThrough; text(): string } {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  let size = 0;
  sink.on('data', (d: Buffer) => {
    if (size < MAX_OUTPUT) chunks.push(d);
    size += d.length;
  });
  return { sink, text: () => Buffer.concat(chunks).toString('utf8') };
}
