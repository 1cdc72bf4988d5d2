import { jwtAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';

/**
 * Connection options for a user of the managed server: its bearer user JWT is the whole credential
 * (nats/identity.ts). Used by core, its tests and the benchmark; workers do the same (nexus-mcp,
 * nexus-hook-relay, nexus-hook).
 */
export function userAuth(jwt: string): Pick<ConnectionOptions, 'authenticator'> {
  return { authenticator: jwtAuthenticator(jwt) };
}
