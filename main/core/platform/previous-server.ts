import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { NatsUser } from './permissions';

/** What a previous core left in `<dataDir>/nats/`: the config it wrote, users.json and the server's pid file. */
export interface PreviousServer {
  port: number;
  /** Run and hook users (not core's own, not reload probes): their sessions may still be running. */
  users: NatsUser[];
  /** The previous core's own user, to revoke. */
  core: { publicKey: string; exp: number | null } | null;
}

const permissionSchema = z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() });
const userSchema = z.object({
  user: z.string().regex(/^(run|hooks|leaf)-/),
  password: z.string(),
  publicKey: z.string().startsWith('U'),
  exp: z.number().int().nullable(),
  permissions: z.object({ publish: permissionSchema, subscribe: permissionSchema }),
});
const usersSchema = z.object({
  core: z.object({ publicKey: z.string().startsWith('U'), exp: z.number().int().nullable() }).nullable(),
  users: z.array(userSchema),
});
const configSchema = z.object({ port: z.number().int().min(1).max(65535) });

/**
 * The previous port and users, or null when there is no config or it is not ours. With `freshKeys`
 * (identity.json was made now) no previous user can be valid, so none is carried.
 */
export function readPreviousServer(dir: string, freshKeys: boolean): PreviousServer | null {
  const config = configSchema.safeParse(readJson(join(dir, 'nats.conf')));
  if (!config.success) return null;
  const users = usersSchema.safeParse(readJson(join(dir, 'users.json')));
  if (!users.success || freshKeys) return { port: config.data.port, users: [], core: null };
  const now = Date.now() / 1000;
  return {
    port: config.data.port,
    users: users.data.users.filter((u) => u.exp === null || u.exp > now),
    core: users.data.core,
  };
}

function readJson(file: string): unknown {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
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
