import { jwtAuthenticator, usernamePasswordAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';

/**
 * Core's managed nats-server runs in operator mode: the secret a worker is handed (NEXUS_NATS_PASSWORD,
 * the hook target's `pass`) is the user's bearer JWT, sent as CONNECT's `jwt`. A plain password
 * (a test server with users) is sent as `user`/`pass`. A random password never has two dots.
 */
export function isUserJwt(secret: string): boolean {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(secret);
}

/** A workspace's hook-credentials file (the relay's and the ACP bridges'): core rewrites it after a restart. */
export interface HookTargetFile {
  url: string;
  user?: string;
  pass?: string;
}

/**
 * The connect options that authenticate as the file's user, re-reading the file at every (re)connect so a
 * restarted core's new password is picked up; none for a server without users.
 */
export function hookFileAuth(
  read: () => HookTargetFile,
): Pick<ConnectionOptions, 'authenticator'> | Record<string, never> {
  const first = read();
  if (!first.user) return {};
  return {
    authenticator: isUserJwt(first.pass ?? '')
      ? jwtAuthenticator(() => read().pass ?? '')
      : usernamePasswordAuthenticator(
          () => read().user ?? '',
          () => read().pass ?? '',
        ),
  };
}
