/**
 * Core's managed nats-server runs in operator mode: the secret a worker is handed (NEXUS_NATS_PASSWORD,
 * the hook target's `pass`) is the user's bearer JWT, sent as CONNECT's `jwt`. A plain password
 * (a test server with users) is sent as `user`/`pass`. A random password never has two dots.
 */
export function isUserJwt(secret: string): boolean {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(secret);
}
