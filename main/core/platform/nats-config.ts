import type { NatsUser } from './permissions';

export interface NatsConfigInput {
  host: string;
  port: number;
  users: NatsUser[];
}

/**
 * The managed server's configuration. nats-server reads JSON as a subset of its own format, so
 * the file is plain JSON: no quoting rules of our own to get wrong. Passwords sit in clear in a
 * 0600 file in the data dir (the server would need bcrypt hashes otherwise; they are per-run,
 * random and die with the run).
 */
export function renderNatsConfig(input: NatsConfigInput): string {
  return JSON.stringify(
    {
      host: input.host,
      port: input.port,
      // Agents talk small JSON; 1 MiB bounds what a hostile run can push at core.
      max_payload: 1024 * 1024,
      authorization: { users: input.users },
    },
    null,
    2,
  );
}
