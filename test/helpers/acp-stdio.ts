import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * A tiny hand-written ACP client (NDJSON JSON-RPC 2.0 over an agent's stdio) for tests that drive a real agent CLI
 * with no Nexus in between: requests with ids, the agent's notifications (`session/update`) kept in order, and the
 * agent's own requests answered by handlers (`session/request_permission`, …; a method with no handler gets
 * -32601). Every line both ways is kept in `wire` for a failing test's message.
 */
export interface AcpMessage {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export class AcpStdio {
  readonly notifications: { method: string; params: Record<string, unknown> }[] = [];
  /** Requests the agent sent, in order. */
  readonly agentRequests: { method: string; params: Record<string, unknown> }[] = [];
  readonly wire: string[] = [];
  stderr = '';
  private nextId = 1;
  private buffer = '';
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly handlers = new Map<string, (params: Record<string, unknown>) => unknown>();
  private readonly waiters: { check(): boolean; resolve(): void }[] = [];
  private exited: number | null = null;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (d: string) => this.read(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr = (this.stderr + d).slice(-20_000)));
    child.on('exit', (code) => {
      this.exited = code ?? -1;
      for (const p of this.pending.values())
        p.reject(new Error(`the agent exited (${code}): ${this.stderr.slice(-2000)}`));
      this.pending.clear();
    });
  }

  /** `docker exec -i` of `argv` in a container, with `env` and the working directory `cwd`. */
  static exec(container: string, argv: readonly string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
    const args = ['exec', '-i', ...(opts.cwd ? ['-w', opts.cwd] : [])];
    for (const [k, v] of Object.entries(opts.env ?? {})) args.push('-e', `${k}=${v}`);
    return new AcpStdio(spawn('docker', [...args, container, ...argv], { stdio: 'pipe' }));
  }

  /** Answers the agent's requests of `method` (a thrown error becomes a JSON-RPC error). */
  on(method: string, handler: (params: Record<string, unknown>) => unknown): void {
    this.handlers.set(method, handler);
  }

  request<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown>,
    timeoutMs = 60_000,
  ): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} got no answer in ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** The `session/update` payloads so far (`params.update`). */
  updates(): Record<string, unknown>[] {
    return this.notifications
      .filter((n) => n.method === 'session/update')
      .map((n) => (n.params.update ?? {}) as Record<string, unknown>);
  }

  /** Resolves once `check` holds (checked at each message), or rejects after timeoutMs. */
  until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w = { check, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`no ${what} in ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.waiters.push(w);
    });
  }

  /** Ends its stdin (ACP agents exit on EOF) and waits a little for the exit, else kills the docker exec. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    for (let i = 0; i < 50 && this.exited === null; i++) await new Promise((r) => setTimeout(r, 100));
    if (this.exited === null) this.child.kill('SIGKILL');
    return this.exited;
  }

  private send(m: AcpMessage): void {
    const line = JSON.stringify(m);
    this.wire.push(`> ${line}`);
    this.child.stdin.write(`${line}\n`);
  }

  private read(data: string): void {
    this.buffer += data;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (!line) continue;
      this.wire.push(`< ${line}`);
      let m: AcpMessage;
      try {
        m = JSON.parse(line) as AcpMessage;
      } catch {
        continue; // not protocol: an agent's stray log line
      }
      void this.dispatch(m);
    }
  }

  private async dispatch(m: AcpMessage): Promise<void> {
    if (m.method && m.id !== undefined) {
      this.agentRequests.push({ method: m.method, params: m.params ?? {} });
      this.wake();
      const handler = this.handlers.get(m.method);
      if (!handler)
        return this.send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `no ${m.method} here` } });
      try {
        this.send({ jsonrpc: '2.0', id: m.id, result: (await handler(m.params ?? {})) ?? null });
      } catch (e) {
        this.send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: String(e) } });
      }
    } else if (m.method) {
      this.notifications.push({ method: m.method, params: m.params ?? {} });
      this.wake();
    } else if (typeof m.id === 'number') {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(`${m.error.code} ${m.error.message} ${JSON.stringify(m.error.data ?? '')}`));
      else p?.resolve(m.result);
    }
  }

  private wake(): void {
    for (const w of [...this.waiters])
      if (w.check()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
  }
}
