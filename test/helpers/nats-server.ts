import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestNats {
  url: string;
  port: number;
  /** A user allowed everything (core's side in tests). */
  admin: { user: string; pass: string };
  /** Publish-only on nexus.hooks.<workspaceId>, like the workspace credentials the platform issues. */
  hookUser(workspaceId: string): { user: string; pass: string };
  stop(): Promise<void>;
}

/**
 * A real nats-server on a free port with per-workspace hook users: publish-only on their hooks subject, or with
 * the permissions `grant` gives (e.g. the platform's own hookGrant).
 */
export async function startNats(
  dir: string,
  workspaceIds: string[],
  grant?: (workspaceId: string) => { publish: object; subscribe: object },
): Promise<TestNats> {
  const users = workspaceIds.map((w) => {
    const permissions = grant ? JSON.stringify(grant(w)) : `{ publish: ["nexus.hooks.${w}"], subscribe: [] }`;
    return `{ user: "hook-${w}", password: "pw-${w}", permissions: ${permissions} }`;
  });
  const conf = join(dir, 'nats.conf');
  writeFileSync(conf, `authorization { users: [ { user: "admin", password: "admin-pw" }, ${users.join(', ')} ] }\n`);
  const child: ChildProcess = spawn('nats-server', ['-a', '127.0.0.1', '-p', '-1', '-c', conf], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /Listening for client connections on [^\s]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`nats-server exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`nats-server did not start: ${out}`)), 10_000);
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    admin: { user: 'admin', pass: 'admin-pw' },
    hookUser: (w) => ({ user: `hook-${w}`, pass: `pw-${w}` }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
