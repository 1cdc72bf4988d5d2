import { shell } from 'electron';

/** The providers whose pages Nexus links to (the Push panel's compare / new pull-request link). */
export const PROVIDER_HOSTS: readonly string[] = ['github.com', 'gitlab.com'];

/**
 * The URL to hand to the system browser, or null: only https, no credentials in it, and a host
 * (with its port) that is a provider's or one of the workspaces' remotes'. Nothing else leaves the app.
 */
export function externalUrl(raw: string, hosts: Iterable<string>): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username || url.password) return null;
  const allowed = new Set([...PROVIDER_HOSTS, ...hosts].map((h) => h.toLowerCase()));
  return allowed.has(url.host) ? url.href : null;
}

/**
 * Opens a link the window asked for in the system browser when `externalUrl` allows it; the window
 * itself never opens (the caller still answers deny). `remoteHosts` gives the workspaces' remote hosts;
 * when it fails only the providers' hosts count. Resolves whether the link was opened.
 */
export async function openExternalLink(raw: string, remoteHosts: () => Promise<Iterable<string>>): Promise<boolean> {
  const url = externalUrl(raw, await remoteHosts().catch(() => []));
  if (!url) return false;
  await shell.openExternal(url);
  return true;
}
