import type { Statement } from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../../shared/errors';
import { committedUnsynced, type Db } from './open';

/** What a statement's run binds: SQLite's plain values, in its `?` order. */
export type StatementParams = (string | number | bigint | null)[];

// The thread's whole program (CommonJS, run with `eval`): its own connection to the store's file, the one statement
// prepared once, each run committed without an fsync (synchronous = NORMAL on this connection only: in WAL mode the
// commit is in the WAL file when it returns, as store's committedUnsynced promises).
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const reason = (e) => String((e && e.message) || e);
let db, statement;
try {
  db = new (require(workerData.sqlite))(workerData.file);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  statement = db.prepare(workerData.sql);
} catch (e) {
  parentPort.postMessage({ fatal: reason(e) });
  process.exit(1);
}
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); process.exit(0); }
  try { parentPort.postMessage({ id: m.id, changes: statement.run(...m.params).changes }); }
  catch (e) { parentPort.postMessage({ id: m.id, error: reason(e) }); }
});
`;

/**
 * Where better-sqlite3 is, for a thread to load the same copy: `import.meta.resolve` in ESM (nexus serve, tests),
 * Node's own `require` in the Electron shell's CommonJS bundle (where `import.meta` is empty).
 */
function sqliteModule(): string {
  const meta = import.meta as { resolve?: (specifier: string) => string };
  return meta.resolve ? fileURLToPath(meta.resolve('better-sqlite3')) : require.resolve('better-sqlite3');
}

interface Pending {
  params: StatementParams;
  resolve(changes: number): void;
  reject(e: Error): void;
}

/**
 * One write statement (an INSERT) run on a worker thread's own connection to the store's file, so its commit never
 * holds the event loop: the gateway's ledger row, written at the end of every model answer while other answers
 * stream. `run` resolves once the row is committed (unsynced: it survives the process's death, not the machine's;
 * store's committedUnsynced). An in-memory store, or a thread that fails, runs the statement on the caller's
 * connection instead (same result, on the loop); a run the failed thread had not answered is run there again, which
 * is why the statement must be idempotent (`INSERT OR IGNORE` keyed by its own id).
 */
export class StatementThread {
  /** The thread now, with the runs it has not answered yet. */
  private current: { worker: Worker; pending: Map<number, Pending> } | null = null;
  private failed = false;
  private next = 0;
  private readonly inflight = new Set<Promise<number>>();
  private inline: Statement<StatementParams> | undefined;

  constructor(
    private readonly db: Db,
    private readonly sql: string,
    private readonly onFailure: (why: string) => void = () => undefined,
  ) {}

  run(params: StatementParams): Promise<number> {
    const thread = this.thread();
    if (!thread) {
      try {
        return Promise.resolve(this.runHere(params));
      } catch (e) {
        return Promise.reject(e as Error);
      }
    }
    const id = this.next++;
    const run = new Promise<number>((resolve, reject) => {
      thread.pending.set(id, { params, resolve, reject });
      thread.worker.postMessage({ id, params });
    });
    this.inflight.add(run);
    const settled = () => void this.inflight.delete(run);
    run.then(settled, settled);
    return run;
  }

  /** Waits for the runs sent so far, then ends the thread (a later run starts another). */
  async close(): Promise<void> {
    const thread = this.current;
    if (!thread) return;
    this.current = null;
    await Promise.allSettled([...this.inflight]);
    const exited = new Promise<void>((resolve) => thread.worker.once('exit', () => resolve()));
    thread.worker.ref(); // its exit is awaited: it holds the process until then
    thread.worker.postMessage('close');
    await exited;
  }

  private thread(): { worker: Worker; pending: Map<number, Pending> } | null {
    if (this.current) return this.current;
    if (this.failed || this.db.memory) return null;
    let worker: Worker;
    try {
      worker = new Worker(THREAD, {
        eval: true,
        workerData: { sqlite: sqliteModule(), file: this.db.name, sql: this.sql },
      });
    } catch (e) {
      this.failed = true;
      this.onFailure(errorMessage(e));
      return null;
    }
    worker.unref();
    const thread = { worker, pending: new Map<number, Pending>() };
    worker.on('message', (m: { id: number; changes?: number; error?: string } | { fatal: string }) => {
      if ('fatal' in m) return this.fail(thread, m.fatal);
      const p = thread.pending.get(m.id);
      if (!p) return;
      thread.pending.delete(m.id);
      if (m.error === undefined) p.resolve(m.changes ?? 0);
      else p.reject(new Error(m.error));
    });
    worker.on('error', (e) => this.fail(thread, errorMessage(e)));
    worker.on('exit', (code) => this.fail(thread, `its thread exited (${code})`));
    this.current = thread;
    return thread;
  }

  /**
   * A thread is gone: what it had not answered is written on the caller's connection, and so is every later run when
   * it was the thread in use (one closed on purpose has nothing left unanswered).
   */
  private fail(thread: { worker: Worker; pending: Map<number, Pending> }, why: string): void {
    if (this.current === thread) {
      this.current = null;
      this.failed = true;
      this.onFailure(why);
      void thread.worker.terminate();
    }
    for (const [id, p] of thread.pending) {
      thread.pending.delete(id);
      try {
        p.resolve(this.runHere(p.params));
      } catch (e) {
        p.reject(e as Error);
      }
    }
  }

  private runHere(params: StatementParams): number {
    this.inline ??= this.db.prepare<StatementParams>(this.sql);
    const statement = this.inline;
    return committedUnsynced(this.db, () => statement.run(...params)).changes;
  }
}
