/**
 * The provider's "open a pull/merge request" page for a pushed branch, built from the remote URL
 * alone (no API call): GitHub and GitLab, in https, ssh:// and scp-like (`git@host:path`) forms.
 * Any other host gets no link, since guessing a URL scheme would send the operator to a 404.
 */
export type Provider = 'github' | 'gitlab';
export interface CompareLink {
  provider: Provider;
  url: string;
}

interface RemoteParts {
  /** The web host, with a port only when the remote was https on a non-default port. */
  host: string;
  /** owner/repo, or group/subgroup/…/project on GitLab; no `.git`. */
  path: string;
  /** http only when the remote itself was plain http (a self-hosted server); https otherwise. */
  scheme: 'https' | 'http';
}

/** Host and repository path of a remote URL, or null when it is not one we can read. */
export function parseRemote(remote: string): RemoteParts | null {
  const raw = remote.trim();
  let host: string;
  let path: string;
  let web: 'https' | 'http' = 'https';
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/.exec(raw);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return null;
    }
    const scheme = url.protocol.replace(/:$/, '').toLowerCase();
    if (!['https', 'http', 'ssh', 'git', 'git+ssh', 'ssh+git'].includes(scheme)) return null;
    // A port belongs to the web host only for http(s); an ssh port says nothing about the web UI.
    host = scheme === 'https' || scheme === 'http' ? url.host : url.hostname;
    if (scheme === 'http') web = 'http';
    path = decodeURIComponent(url.pathname);
  } else if (scp) {
    host = scp[1] ?? '';
    path = scp[2] ?? '';
  } else return null;
  path = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/i, '')
    .replace(/^~[^/]*\//, '');
  const segments = path.split('/');
  if (!host || segments.length < 2 || segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return { host: host.toLowerCase(), path: segments.join('/'), scheme: web };
}

/** Which provider serves a host: github.com / gitlab.com, or a self-hosted one named after it. */
export function providerOf(host: string): Provider | null {
  const name = host.replace(/:\d+$/, '');
  if (name === 'github.com' || /(^|\.)github\./.test(name)) return 'github';
  if (name === 'gitlab.com' || /(^|\.)gitlab\./.test(name)) return 'gitlab';
  return null;
}

const encodeRef = (ref: string): string => ref.split('/').map(encodeURIComponent).join('/');

/** The compare / new-PR page for `branch` into `base` on the remote's provider, or null. */
export function compareLink(remote: string, base: string, branch: string): CompareLink | null {
  const parts = parseRemote(remote);
  if (!parts) return null;
  const provider = providerOf(parts.host);
  const repo = parts.path.split('/').map(encodeURIComponent).join('/');
  if (provider === 'github') {
    // GitHub repositories are exactly owner/repo.
    if (parts.path.split('/').length !== 2) return null;
    return {
      provider,
      url: `${parts.scheme}://${parts.host}/${repo}/compare/${encodeRef(base)}...${encodeRef(branch)}?expand=1`,
    };
  }
  if (provider === 'gitlab') {
    const q = new URLSearchParams({
      'merge_request[source_branch]': branch,
      'merge_request[target_branch]': base,
    });
    return { provider, url: `${parts.scheme}://${parts.host}/${repo}/-/merge_requests/new?${q.toString()}` };
  }
  return null;
}
