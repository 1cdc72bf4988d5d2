import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import type { NatsUser } from './permissions';

/** What a previous core left in `<dataDir>/nats/`: the config it wrote and the server's pid file. */
export interface PreviousServer {
  port: number;
  /** Run and hook users (not core's own, not reload probes): their sessions may still be running. */
  users: NatsUser[];
}

const userSchema = z.object({
  user: z.string(),
  password: z.string(),
  permissions: z.object({
    publish: z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }),
    subscribe: z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }),
  }),
});
const configSchema = z.object({
  port: z.number().int().min(1).max(65535),
  authorization: z.object({ users: z.array(userSchema) }),
});

/** The previous config, or null when there is none or it is not ours. */
export function readPreviousConfig(configFile: string): PreviousServer | null {
  if (!existsSync(configFile)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(configFile, 'utf8'));
  } catch {
    return null;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) return null;
  const users = parsed.data.authorization.users.filter((u) => /^(run|hooks)-/.test(u.user));
  return { port: parsed.data.port, users };
}

/**
 * The pid of a nats-server still running with exactly this config file (a previous core was killed
 * without stopping it), checked against /proc/<pid>/cmdline so a reused pid is never signalled.
 */
export function previousServerPid(pidFile: string, binary: string, configFile: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 1) return null;
  const argv = cmdline(pid);
  if (!argv) return null;
  const name = (argv[0] ?? '').split('/').pop();
  const wanted = binary.split('/').pop();
  const at = argv.indexOf('-c');
  return name === wanted && at > 0 && argv[at + 1] === configFile ? pid : null;
}

function cmdline(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

/** Stops a previous server (SIGTERM, SIGKILL after 5 s) and waits until it is gone. */
export async function stopPrevious(pid: number): Promise<void> {
  const alive = (): boolean => cmdline(pid) !== null && !zombie(pid);
  signal(pid, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (alive()) {
    if (Date.now() > deadline) signal(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function zombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
