import { z } from 'zod';
import { operation } from './define';
import { TokenState } from './tokens';

/**
 * What a workspace's sessions may do with Nexus's own MCP server (the `nexus-fleet` server in each
 * session's --mcp-config): nothing (the default), or act with a read, write or vault token. Vault
 * is only ever the operator's explicit choice.
 */
export const FleetAccess = z.enum(['none', 'read', 'write', 'vault']);
export type FleetAccess = z.infer<typeof FleetAccess>;

export const FleetChoice = z
  .object({
    access: FleetAccess.describe(
      "The class of the workspace's fleet credential; none gives its sessions no Nexus server",
    ),
    allWorkspaces: z
      .boolean()
      .optional()
      .describe('Let the credential act on other workspaces too (by default only on its own)'),
  })
  .strict();
export type FleetChoice = z.infer<typeof FleetChoice>;

/** A workspace's fleet credential: a normal MCP token named after the workspace (Settings → Access lists it). */
export const FleetCredential = z.object({
  workspaceId: z.string(),
  tokenId: z.string(),
  class: z.enum(['read', 'write', 'vault']),
  allWorkspaces: z.boolean(),
  state: TokenState,
  expiresAt: z.string(),
});
export type FleetCredential = z.infer<typeof FleetCredential>;

/** The MCP server name Nexus's own server has in each session of a workspace with a credential. */
export const FLEET_MCP_SERVER = 'nexus-fleet';

/** The name of a workspace's fleet token. */
export const fleetTokenName = (workspaceName: string): string => `workspace ${workspaceName} (fleet)`;

export const fleetOperations = {
  'fleet.list': operation({
    summary: "Every workspace's fleet credential (class, scope, state; never the secret).",
    access: 'operator',
    fleet: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ credentials: z.array(FleetCredential) }),
  }),
  'fleet.set': operation({
    summary:
      "Choose a workspace's fleet credential: none revokes it; another class replaces the token (sessions " +
      'launched from now on get the new one).',
    access: 'operator',
    fleet: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({ workspace: z.string().min(1).max(100).describe('Workspace id or name') })
      .extend(FleetChoice.shape)
      .strict(),
    output: z.object({ credential: FleetCredential.nullable() }),
  }),
};
