import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from '../../test/helpers/core';
import type { CoreConfigInput } from '../../main/core/config';
import type { InternalAnswer } from './internal-answers';
import type { ChildReport } from './reports';

/**
 * The soak's core process (core-process.ts) from the soak's side: started on a data dir with a fixed
 * start token (so the operator API and /api/events take the same Bearer after a restart), its reports
 * handed to `onReport`, SIGKILLed and started again on the same data dir.
 */
export interface SoakCore {
  readonly url: string;
  readonly pid: number;
  readonly delegationUrl: string | null;
  /** An operation as the operator over HTTP; throws with core's code and message. */
  rpc<T = unknown>(op: string, input?: unknown): Promise<T>;
  /** Every answer of `rpc` whose code was `internal` (internal-answers.ts: each fails the run). */
  readonly internalAnswers: readonly InternalAnswer[];
  /** SIGKILL: nothing of it runs its clean-up (its nats-server stays behind, as after a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same data dir. */
  start(): Promise<void>;
  /** A clean stop (SIGTERM). */
  stop(): Promise<void>;
  output(): string;
}

export async function startSoakCore(
  dataDir: string,
  config: CoreConfigInput,
  token: string,
  onReport: (r: ChildReport) => void,
): Promise<SoakCore> {
  let child: ChildProcess | null = null;
  let ready: Extract<ChildReport, { kind: 'ready' }> | null = null;
  let out = '';
  const internals: InternalAnswer[] = [];
  const start = async (): Promise<void> => {
    ready = null;
    const c = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/soak/core-process.ts', dataDir, JSON.stringify(config), token],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: process.env },
    );
    child = c;
    c.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-100_000)));
    c.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-100_000)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the soak's core did not start: ${out.slice(-2000)}`)), 180_000);
      c.on('message', (m: ChildReport) => {
        if (m.kind === 'ready') {
          ready = m;
          clearTimeout(timer);
          resolve();
        }
        onReport(m);
      });
      c.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the soak's core exited (${code}): ${out.slice(-2000)}`));
      });
    });
  };
  const exit = async (signal: NodeJS.Signals): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await gone;
  };
  await start();
  const now = (): Extract<ChildReport, { kind: 'ready' }> => {
    if (!ready) throw new Error("the soak's core is not running");
    return ready;
  };
  return {
    get url() {
      return now().url;
    },
    get pid() {
      return now().pid;
    },
    get delegationUrl() {
      return now().delegationUrl;
    },
    internalAnswers: internals,
    async rpc<T>(op: string, input: unknown = {}): Promise<T> {
      const res = await fetch(`${now().url}/api/rpc/${op}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
        signal: AbortSignal.timeout(60_000),
      });
      const body = (await res.json()) as { result?: T; error?: { code: string; message: string } };
      if (body.error?.code === 'internal')
        internals.push({ where: op, at: Date.now(), message: body.error.message.slice(0, 300) });
      if (!res.ok || body.error) throw new Error(`${op}: ${body.error?.code} ${body.error?.message}`);
      return body.result as T;
    },
    kill: async () => {
      await exit('SIGKILL');
      ready = null;
    },
    start,
    stop: async () => {
      await exit('SIGTERM');
      ready = null;
    },
    output: () => out,
  };
}
