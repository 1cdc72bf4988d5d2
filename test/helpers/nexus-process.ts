import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { previousServerPid, stopPrevious } from '../../main/core/platform/previous-server';
import { repoRoot } from './core';
import { readUntil } from './wait';

/**
 * `nexus serve` (the built CLI, dist/cli.js: run `npm run build` first) as its own process on a
 * data dir, so a test can SIGKILL it mid-operation and start it again on the same data dir.
 */
export interface NexusProcess {
  url: string;
  /** The operator's start token (Bearer on /api/rpc). */
  token: string;
  child: ChildProcess;
  /** Calls an operation as the operator; throws with core's code and message on an error. */
  rpc<T = unknown>(op: string, input?: unknown): Promise<T>;
  /** Calls an operation as the operator and returns core's answer as it is, a result or an error. */
  answer<T = unknown>(op: string, input?: unknown): Promise<RpcAnswer<T>>;
  /** Everything it printed. */
  output(): string;
  /** Sends `signal` and waits for the exit (SIGKILL: nothing of it runs its clean-up). */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface RpcAnswer<T> {
  result?: T;
  error?: { code: string; message: string };
}

/** How to start it: `fromSource` runs main/cli.ts through tsx, for tests that run before `npm run build`. */
export interface NexusProcessOptions {
  fromSource?: boolean;
}

/** `env` is laid over this process's environment; a variable set to undefined is left out of the child's. */
export async function startNexusProcess(
  dataDir: string,
  env: Record<string, string | undefined> = {},
  options: NexusProcessOptions = {},
): Promise<NexusProcess> {
  // A killed serve leaves its serve.json: wait for the one this process writes.
  const serveFile = join(dataDir, 'serve.json');
  rmSync(serveFile, { force: true });
  const entry = options.fromSource ? ['--import', 'tsx', 'main/cli.ts'] : ['dist/cli.js'];
  const child = spawn(process.execPath, [...entry, 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  const deadline = Date.now() + 60_000;
  while (!existsSync(serveFile)) {
    if (child.exitCode !== null) throw new Error(`nexus serve exited: ${out}`);
    if (Date.now() > deadline) throw new Error(`nexus serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const { url, token } = JSON.parse(readFileSync(serveFile, 'utf8')) as { url: string; token: string };
  const call = async <T>(op: string, input: unknown): Promise<{ status: number; body: RpcAnswer<T> }> => {
    const res = await fetch(`${url}/api/rpc/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return { status: res.status, body: (await res.json()) as RpcAnswer<T> };
  };
  return {
    url,
    token,
    child,
    output: () => out,
    answer: async <T>(op: string, input: unknown = {}) => (await call<T>(op, input)).body,
    rpc: async <T>(op: string, input: unknown = {}): Promise<T> => {
      const { status, body } = await call<T>(op, input);
      if (status >= 400 || body.error)
        throw new Error(`${op} answered ${status}: ${body.error?.code} ${body.error?.message}`);
      return body.result as T;
    },
    kill: async (signal) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

/** Creates a workspace through `nexus` and waits until it runs; returns its container id. */
export async function runningWorkspace(nexus: NexusProcess, name: string, repoUrl: string): Promise<string> {
  await nexus.rpc('workspaces.create', { name, repoUrl });
  const ws = await readUntil(
    () =>
      nexus.rpc<{ status: string; containerId: string | null; reason?: string }>('workspaces.get', { workspace: name }),
    (w) => w.status === 'running' || w.status === 'error',
    400_000,
  );
  if (ws.status !== 'running' || !ws.containerId) throw new Error(`workspace ${name}: ${ws.status} ${ws.reason ?? ''}`);
  return ws.containerId;
}

/** Reads the data dir's database on a read-only connection of its own (the process keeps writing). */
export function readDb<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'nexus.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The platform run a session holds now (sessions.run_id). */
export const sessionRunId = (dataDir: string, sessionId: string): string | null =>
  readDb(
    dataDir,
    (db) =>
      (db.prepare('SELECT run_id AS r FROM sessions WHERE id = ?').get(sessionId) as { r: string | null } | undefined)
        ?.r ?? null,
  );

/** Test clean-up: stops a nats-server a SIGKILLed `nexus serve` left behind on `dataDir` (if no new one replaced it). */
export async function stopLeftNats(dataDir: string): Promise<void> {
  const dir = join(dataDir, 'nats');
  const pid = previousServerPid(join(dir, 'nats.pid'), 'nats-server', join(dir, 'nats.conf'));
  if (pid) await stopPrevious(pid);
}
