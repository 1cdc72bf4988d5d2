import type Docker from 'dockerode';
import type { Duplex, Readable } from 'node:stream';
import type { TerminalSize } from '../../../shared/terminal';
import { dockerFailure } from '../workspaces/engine';

/** A process in a container on a pseudo-terminal: its screen bytes out, keystrokes in, a size. */
export interface TtyProcess {
  output: Readable;
  write(data: string): void;
  resize(size: TerminalSize): Promise<void>;
  /** Drops the connection (the process itself is ended by whoever owns it: docker does not). */
  close(): void;
}

export interface ContainerAttach {
  attach(
    containerId: string,
    argv: string[],
    opts: { tty: true; size: TerminalSize; env?: string[] },
  ): Promise<TtyProcess>;
}

/** `docker exec -it` through dockerode: one raw (not multiplexed) stream, resized through the engine. */
export class DockerAttach implements ContainerAttach {
  constructor(private readonly docker: Docker) {}

  async attach(
    containerId: string,
    argv: string[],
    opts: { tty: true; size: TerminalSize; env?: string[] },
  ): Promise<TtyProcess> {
    const { cols, rows } = opts.size;
    let stream: Duplex;
    let exec: Docker.Exec;
    try {
      exec = await this.docker.getContainer(containerId).exec({
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
      throw dockerFailure(e, 'open a terminal in the workspace');
    }
    return {
      output: stream,
      write: (data) => void stream.write(data),
      resize: async (size) => {
        try {
          await exec.resize({ h: size.rows, w: size.cols });
        } catch (e) {
          throw dockerFailure(e, 'resize the terminal');
        }
      },
      close: () => stream.destroy(),
    };
  }
}
