/**
 * The public origin's fixed URLs (docs/remote.md). The MCP endpoint's canonical URL is the resource every
 * OAuth token is bound to; the paths are routed exactly on the public Host.
 */
/** The one account behind every grant: the operator, who approves each connector on their own screen. */
export const OPERATOR_ACCOUNT = 'operator';

export const MCP_RESOURCE_PATH = '/api/mcp';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/api/mcp';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  consent: '/oauth/consent',
} as const;

/** Scopes a client may ask for; each names the class it would like (the operator decides). */
export const REMOTE_SCOPES = ['nexus:read', 'nexus:write'] as const;

/** Claude's OAuth callbacks, the only non-loopback redirect URIs dynamic registration accepts. */
export const CLAUDE_CALLBACKS: readonly string[] = [
  'https://claude.ai/api/mcp/auth_callback',
  'https://claude.com/api/mcp/auth_callback',
];

/** `https://claude.ai/…` exactly, or an http(s) URL on a loopback address (a desktop client's listener). */
export function isAllowedRedirect(uri: string): boolean {
  if (CLAUDE_CALLBACKS.includes(uri)) return true;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || url.username || url.password || url.hash) return false;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/**
 * A public origin as the operator gives it: `https://name[:port]`, no path, query or credentials.
 * Returns the normalized origin or null.
 */
export function parsePublicOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) return null;
  if (url.pathname !== '/' && url.pathname !== '') return null;
  return url.origin;
}

export const canonicalResource = (origin: string): string => `${origin}${MCP_RESOURCE_PATH}`;
