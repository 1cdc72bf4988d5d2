import { NexusError } from '../../../shared/errors';

/**
 * Checks a repository URL before anything is created: http(s) only (the token reaches git through
 * the credential helper, which speaks HTTP auth), no credentials inside the URL (they would show in
 * `docker inspect` and `ps`), nothing git could read as an option.
 */
export function checkRepoUrl(raw: string): string {
  const bad = (why: string): NexusError => new NexusError('bad_request', `Invalid repository URL: ${why}.`);
  if (/\s/.test(raw) || raw.startsWith('-')) throw bad('it must be one http(s) URL without spaces');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('use an https:// (or http://) URL such as https://github.com/owner/repo.git');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw bad(`${url.protocol} is not supported, use https:// (or http://)`);
  if (url.username || url.password) throw bad('put the token in the vault and pick it as the secret, not in the URL');
  if (!url.hostname) throw bad('the host is missing');
  return url.toString();
}

/** `host[:port]` as git's credential protocol names it. */
export const credentialHost = (repoUrl: string): string => new URL(repoUrl).host;

/**
 * A token bound to a host is only handed to git for a repository on that host (`github.com`
 * matches `github.com` and `github.com:443`; `host:port` must match exactly). No host = any.
 */
export function checkSecretHost(secretHost: string | null, repoUrl: string, secretId: string): void {
  if (!secretHost) return;
  const url = new URL(repoUrl);
  const want = secretHost.toLowerCase();
  if (want === url.host.toLowerCase() || want === url.hostname.toLowerCase()) return;
  throw new NexusError(
    'bad_request',
    `Secret "${secretId}" is for ${secretHost}, but the repository is on ${url.host}; pick a secret for that host.`,
  );
}
