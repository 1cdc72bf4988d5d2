export interface NatsConfigInput {
  host: string;
  port: number;
  /** Where the server writes its pid, so the next core can find it if this one is killed. */
  pidFile: string;
  /** The operator JWT (signed once, nats/identity.ts) and the one account's JWT, revocations included. */
  operatorJwt: string;
  account: string;
  accountJwt: string;
  /** Leaf nodes (one per remote engine) dial this address; they authenticate with a user JWT core made. */
  leafPort?: number;
}

/**
 * The managed server's configuration. nats-server reads JSON as a subset of its own format, so
 * the file is plain JSON: no quoting rules of our own to get wrong. Operator mode: the server
 * trusts Nexus's operator and takes the account's JWT from this file (`resolver: MEMORY`), so a
 * run's user JWT needs no entry here (no reload per run); revoking users is a new account JWT and
 * a reload. It holds no secret (JWTs are signed, not secret; the seeds stay in identity.json).
 */
export function renderNatsConfig(input: NatsConfigInput): string {
  return JSON.stringify(
    {
      host: input.host,
      port: input.port,
      pid_file: input.pidFile,
      // Agents talk small JSON; 1 MiB bounds what a hostile run can push at core.
      max_payload: 1024 * 1024,
      operator: input.operatorJwt,
      resolver: 'MEMORY',
      resolver_preload: { [input.account]: input.accountJwt },
      ...(input.leafPort ? { leafnodes: { host: '127.0.0.1', port: input.leafPort } } : {}),
    },
    null,
    2,
  );
}
