import type { NatsUser } from './permissions';

export interface NatsConfigInput {
  host: string;
  port: number;
  /** Where the server writes its pid, so the next core can find it if this one is killed. */
  pidFile: string;
  users: NatsUser[];
}

/**
 * The managed server's configuration. nats-server reads JSON as a subset of its own format, so
 * the file is plain JSON: no quoting rules of our own to get wrong. Passwords sit in clear in a
 * 0600 file in the data dir (the server would need bcrypt hashes otherwise; they are per-run,
 * random and die with the run). A restarted core reads them back to keep running sessions' users.
 */
export function renderNatsConfig(input: NatsConfigInput): string {
  return JSON.stringify(
    {
      host: input.host,
      port: input.port,
      pid_file: input.pidFile,
      // Agents talk small JSON; 1 MiB bounds what a hostile run can push at core.
      max_payload: 1024 * 1024,
      authorization: { users: input.users },
    },
    null,
    2,
  );
}
