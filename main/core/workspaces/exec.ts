import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import { dockerFailure } from './engine';

export interface ExecOptions {
  cmd: string[];
  /** Written to the process's stdin (never in argv or env, so never in `docker inspect` or `ps`). */
  stdin?: string;
  env?: string[];
  workingDir?: string;
  /** Keeps at most this many characters of each output stream (the tail). */
  maxOutput?: number;
  timeoutMs?: number;
  onStderr?: (text: string) => void;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `docker exec` with demuxed, bounded output and an optional stdin payload. */
export async function execIn(docker: Docker, containerId: string, opts: ExecOptions): Promise<ExecResult> {
  const max = opts.maxOutput ?? 16_000;
  let exec: Docker.Exec;
  let stream: Duplex;
  try {
    exec = await docker.getContainer(containerId).exec({
      Cmd: opts.cmd,
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: opts.stdin !== undefined,
      Env: opts.env,
      WorkingDir: opts.workingDir,
    });
    stream = (await exec.start({ hijack: true, stdin: opts.stdin !== undefined })) as Duplex;
  } catch (e) {
    throw dockerFailure(e, 'run a command in the workspace');
  }
  let stdout = '';
  let stderr = '';
  const out = new PassThrough();
  const err = new PassThrough();
  out.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-max)));
  err.on('data', (d: Buffer) => {
    const text = d.toString();
    stderr = (stderr + text).slice(-max);
    opts.onStderr?.(text);
  });
  docker.modem.demuxStream(stream, out, err);
  if (opts.stdin !== undefined) stream.write(opts.stdin);
  await new Promise<void>((resolve, reject) => {
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          stream.destroy();
          reject(new NexusError('timeout', `The command in the workspace did not finish within ${opts.timeoutMs} ms.`));
        }, opts.timeoutMs)
      : undefined;
    const done = (e?: Error): void => {
      clearTimeout(timer);
      if (e) reject(dockerFailure(e, 'run a command in the workspace'));
      else resolve();
    };
    stream.on('end', () => done());
    stream.on('close', () => done());
    stream.on('error', (e: Error) => done(e));
  });
  let exitCode: number;
  try {
    exitCode = (await exec.inspect()).ExitCode ?? -1;
  } catch (e) {
    throw dockerFailure(e, 'read the exit code of a command in the workspace');
  }
  return { exitCode, stdout, stderr };
}
