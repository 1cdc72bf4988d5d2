import { jwtAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';

/**
 * Connection options for a user of the managed server: its bearer user JWT is the whole credential
 * (nats/identity.ts). Used by core, its tests and the benchmark; workers do the same (nexus-mcp,
 * nexus-hook-relay, nexus-hook).
 */
export function userAuth(jwt: string): Pick<ConnectionOptions, 'authenticator'> {
  return { authenticator: jwtAuthenticator(jwt) };
}

/**
 * The part of a bearer user JWT the redactor masks: its signature. Header and claims are public
 * (who, which subjects, until when); without its signature the JWT is no credential. Registering
 * only the signature (86 characters) keeps the redactor's one pattern as small as it was with the
 * passwords before (a whole JWT is ~700 characters, and the pattern is rebuilt on every add).
 */
export function jwtSecret(jwt: string): string {
  return jwt.slice(jwt.lastIndexOf('.') + 1);
}
