import { z } from 'zod';
import { operation } from './define';
import { TokenState } from './tokens';

/**
 * What a workspace's sessions may do with Nexus's own MCP server (the `nexus-delegated` server in each
 * session's --mcp-config): nothing (the default), or act with a read, write or vault token. Vault
 * is only ever the operator's explicit choice.
 */
export const DelegationAccess = z.enum(['none', 'read', 'write', 'vault']);
export type DelegationAccess = z.infer<typeof DelegationAccess>;

export const DelegationChoice = z
  .object({
    access: DelegationAccess.describe(
      "The class of the workspace's delegated credential; none gives its sessions no Nexus server",
    ),
    allWorkspaces: z
      .boolean()
      .optional()
      .describe('Let the credential act on other workspaces too (by default only on its own)'),
  })
  .strict();
export type DelegationChoice = z.infer<typeof DelegationChoice>;

/** A workspace's delegated credential: a normal MCP token named after the workspace (Settings → Access lists it). */
export const Delegation = z.object({
  workspaceId: z.string(),
  tokenId: z.string(),
  class: z.enum(['read', 'write', 'vault']),
  allWorkspaces: z.boolean(),
  state: TokenState,
  expiresAt: z.string(),
});
export type Delegation = z.infer<typeof Delegation>;

/** The MCP server name Nexus's own server has in each session of a workspace with a credential. */
export const DELEGATED_MCP_SERVER = 'nexus-delegated';

/** The name of a workspace's delegated token. */
export const delegatedTokenName = (workspaceName: string): string => `workspace ${workspaceName} (delegated)`;

export const delegationOperations = {
  'delegation.list': operation({
    summary: "Every workspace's delegated credential (class, scope, state; never the secret).",
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ credentials: z.array(Delegation) }),
  }),
  'delegation.set': operation({
    summary:
      "Choose a workspace's delegated credential: none revokes it; another class replaces the token (sessions " +
      'launched from now on get the new one).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({ workspace: z.string().min(1).max(100).describe('Workspace id or name') })
      .extend(DelegationChoice.shape)
      .strict(),
    output: z.object({ credential: Delegation.nullable() }),
  }),
};
