import { OpenSshChild, type OpenSshDeps } from './openssh-child';

export { knownHostsLine } from './openssh-child';

export interface ForwardTarget {
  host: string;
  port: number;
}

export type OpenSshForwardDeps = OpenSshDeps;

/**
 * Core's end of a remote engine's leaf link as OpenSSH's own `ssh -N -R` (a child process per
 * engine, openssh-child.ts), instead of ssh2's forward in core's process: OpenSSH frames and decrypts
 * each forwarded message in C, so a NATS message from the engine no longer costs core's event loop the
 * SSH work. The remote side is the same as ssh2's: `127.0.0.1:<port>` on the remote host only (no port
 * on any network). An unplanned exit (the link cut) is asked again on the same ports, with backoff.
 */
export class OpenSshForward {
  private readonly child: OpenSshChild;
  private ports: number[] = [];

  constructor(
    private readonly targets: ForwardTarget[],
    deps: OpenSshForwardDeps,
  ) {
    this.child = new OpenSshChild(deps, "the leaf link's SSH forward");
  }

  /** Starts (the first, then each restart): the bench and tests read it. */
  get starts(): number {
    return this.child.starts;
  }

  /** The remote ports, in the order of the targets, once every forward is up. */
  async start(): Promise<number[]> {
    this.ports = await this.child.start(
      () => this.targets.flatMap((t, i) => ['-R', `127.0.0.1:${this.ports[i] ?? 0}:${t.host}:${t.port}`]),
      () => this.watch(),
    );
    return this.ports;
  }

  /** The wrapper shell's pid, ssh is its child (null: not running): the bench reads their CPU. */
  get pid(): number | null {
    return this.child.pid;
  }

  dispose(): void {
    this.child.dispose();
  }

  /** Each forward's port from ssh's "Allocated port" lines (a pinned one has none); up once every reply came. */
  private watch(): (line: string) => number[] | Error | undefined {
    const allocated = this.targets.map((_, i) => this.ports[i] ?? 0);
    return (line) => {
      const m = /^Allocated port (\d+) for remote forward to (.+):(\d+)$/.exec(line);
      if (m) {
        const i = this.targets.findIndex((t, j) => allocated[j] === 0 && t.host === m[2] && t.port === Number(m[3]));
        if (i >= 0) allocated[i] = Number(m[1]);
      }
      if (!/forwarding_success: all expected forwarding replies received/.test(line)) return undefined;
      return allocated.some((p) => p === 0) ? new Error('a forward got no port') : allocated;
    };
  }
}
