import { z } from 'zod';
import { operation } from './define';

/**
 * Remote connectors (docs/remote.md): Claude on the phone through a public origin, with Nexus as its own
 * OAuth authorization server. Every operation here is operator-only: no MCP token, and no OAuth
 * grant, can approve a connector, list grants or change the public origin.
 */

/** The classes an OAuth grant may carry: never `vault` (docs/remote.md says why). */
export const RemoteClass = z.enum(['read', 'write']);
export type RemoteClass = z.infer<typeof RemoteClass>;

export const RemoteStatus = z.object({
  /** The public origin in force (`https://name`), or null when public origin mode is off. */
  publicOrigin: z.string().nullable(),
  /** Where it comes from: `--public-origin` / NEXUS_PUBLIC_ORIGIN (then the setting cannot change it), or Settings. */
  source: z.enum(['off', 'flag', 'setting']),
  /** The MCP URL to paste into Claude's "Add custom connector", or null. */
  connectorUrl: z.string().nullable(),
});
export type RemoteStatus = z.infer<typeof RemoteStatus>;

export const RemotePending = z.object({
  id: z.string(),
  clientName: z.string(),
  /** Only the host of the redirect URI (e.g. claude.ai), so the operator can tell who asks. */
  redirectHost: z.string(),
  /** The short code the public page shows: the operator checks it matches before approving. */
  code: z.string(),
  classAsked: RemoteClass,
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type RemotePending = z.infer<typeof RemotePending>;

export const RemoteGrant = z.object({
  id: z.string(),
  clientName: z.string(),
  redirectHost: z.string(),
  class: RemoteClass,
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type RemoteGrant = z.infer<typeof RemoteGrant>;

/** A client made in Settings for Claude's "advanced settings" (its secret is never listed). */
export const RemoteClient = z.object({
  clientId: z.string(),
  clientName: z.string(),
  createdAt: z.string(),
});
export type RemoteClient = z.infer<typeof RemoteClient>;

const Id = z.string().min(1).max(200);

export const remoteOperations = {
  'remote.status': operation({
    summary: 'Public origin mode: the origin in force, where it comes from, and the connector URL.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: RemoteStatus,
  }),
  'remote.setOrigin': operation({
    summary: 'Turn public origin mode on with an https origin (a tunnel you run), or off with null.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ publicOrigin: z.string().max(300).nullable() }).strict(),
    output: RemoteStatus,
  }),
  'remote.pending': operation({
    summary: 'Connectors waiting for your approval: client, redirect host, the code their page shows.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ pending: z.array(RemotePending) }),
  }),
  'remote.approve': operation({
    summary: 'Approve a waiting connector with a class (read by default; write lets it act).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ id: Id, class: RemoteClass.default('read') }).strict(),
    output: RemoteGrant,
  }),
  'remote.deny': operation({
    summary: 'Refuse a waiting connector; its page tells the client it was denied.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ id: Id }).strict(),
    output: z.object({ denied: z.literal(true) }),
  }),
  'remote.grants': operation({
    summary: 'Every connector grant: client, class, created, last used, revoked.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ grants: z.array(RemoteGrant) }),
  }),
  'remote.revoke': operation({
    summary: 'Revoke a connector grant and every token issued under it, at once.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ id: Id }).strict(),
    output: RemoteGrant,
  }),
  'remote.createClient': operation({
    summary:
      "Make a client id and secret for Claude's advanced settings (redirects: Claude's callbacks). The secret is shown this once.",
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ clientId: z.string(), clientSecret: z.string(), redirectUris: z.array(z.string()) }),
    revealsOnce: 'clientSecret',
  }),
  'remote.clients': operation({
    summary: 'The pre-registered clients: id, name, created (never the secret).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ clients: z.array(RemoteClient) }),
  }),
  'remote.revokeClient': operation({
    summary: 'Delete a pre-registered client and revoke its grants and every token issued under them.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ clientId: Id }).strict(),
    output: z.object({ revoked: z.literal(true), clientId: z.string(), grantsRevoked: z.number().int() }),
  }),
};
