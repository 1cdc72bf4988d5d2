import { z } from 'zod';
import { AgentKind } from './agent-kind';
import { operation } from './define';
import { DelegationChoice } from './delegation';

export const WorkspaceStatus = z.enum(['creating', 'running', 'stopped', 'error', 'missing']);
export type WorkspaceStatus = z.infer<typeof WorkspaceStatus>;

/** Safe in a container name, a label and a path: lowercase letters, digits, dashes. */
export const WorkspaceName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$|^[a-z0-9]$/,
    'use 1-40 lowercase letters, digits and dashes, not starting or ending with a dash',
  )
  .describe('Workspace name: lowercase letters, digits and dashes');

/** A workspace is named by its id or its name wherever one is asked for. */
export const WorkspaceRef = z.string().min(1).max(100).describe('Workspace id or name');

export const Workspace = z.object({
  id: z.string(),
  name: z.string(),
  repoUrl: z.string(),
  secretId: z.string().nullable(),
  /** The vault secret its agent signs in with; null = the default from Settings → Agent. */
  agentSecretId: z.string().nullable(),
  /** Its sessions run in bypassPermissions: nothing asks, and inbox messages to them are held, not delivered. */
  bypassPermissions: z.boolean(),
  /** The agent CLI its sessions run when the create names none (claude unless set). */
  defaultAgent: AgentKind,
  image: z.string().nullable(),
  status: WorkspaceStatus,
  reason: z.string().nullable(),
  containerId: z.string().nullable(),
  /** The Docker engine it lives on (its volume is there): `local` or a remote engine's id. */
  engine: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Workspace = z.infer<typeof Workspace>;

export const Orphan = z.object({ containerId: z.string(), name: z.string(), image: z.string(), state: z.string() });
export type Orphan = z.infer<typeof Orphan>;

const byRef = z.object({ workspace: WorkspaceRef }).strict();

export const workspaceOperations = {
  'workspaces.list': operation({
    summary: 'Every workspace, reconciled with the Docker engine.',
    access: 'read',
    delegated: 'own-workspace-listed',
    phone: true,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ workspaces: z.array(Workspace) }),
  }),
  'workspaces.get': operation({
    summary: 'One workspace by id or name, reconciled with the Docker engine.',
    access: 'read',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: byRef,
    output: Workspace,
  }),
  'workspaces.create': operation({
    summary:
      'Create a workspace: a container from the worker image holding a clone of the repository. Returns at once with status creating.',
    access: 'vault',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        name: WorkspaceName,
        repoUrl: z.string().min(1).max(2000).describe('Repository URL to clone (https, http or a local path)'),
        secretId: z
          .string()
          .min(1)
          .optional()
          .describe('Id of the vault secret holding the provider token for the clone'),
        image: z.string().min(1).max(300).optional().describe('Worker image; the built-in one by default'),
        agentSecretId: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe(
            "Vault secret (Anthropic API key or Claude OAuth token) the workspace's agent signs in with; the " +
              'default from Settings → Agent when omitted',
          ),
        bypassPermissions: z
          .boolean()
          .optional()
          .describe(
            'Run its sessions in bypassPermissions (the container is the boundary); inbox messages to them are then held, not delivered',
          ),
        defaultAgent: AgentKind.optional().describe(
          'The agent CLI its sessions run when the create names none: claude (Claude Code, the default) or codex (Codex)',
        ),
        engine: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe(
            'Docker engine (id or name) to place it on; default: the reachable engine with the fewest running sessions',
          ),
        delegation: DelegationChoice.optional().describe(
          "The workspace's delegated credential (operator only): its sessions get Nexus's MCP server with this class",
        ),
        egress: z
          .enum(['open', 'allow-list'])
          .optional()
          .describe(
            'allow-list: on an internal network, out only through the model gateway and a proxy with the ' +
              "workspace's host allow-list (egress.setHosts); open (default): the workers' network as before",
          ),
      })
      .strict(),
    output: Workspace,
  }),
  'workspaces.start': operation({
    summary: 'Start a stopped workspace, re-injecting its secrets.',
    access: 'vault',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: byRef,
    output: Workspace,
  }),
  'workspaces.stop': operation({
    summary: 'Stop a running workspace; its sessions go offline.',
    access: 'write',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: byRef,
    output: Workspace,
  }),
  'workspaces.delete': operation({
    summary:
      'Delete a workspace: its container, its volume and its row. Refused while a session of it is being created.',
    access: 'write',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: byRef,
    output: z.object({ deleted: z.literal(true), id: z.string() }),
  }),
  'workspaces.orphans': operation({
    summary: 'Containers labelled as Nexus workspaces that have no workspace row.',
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ orphans: z.array(Orphan) }),
  }),
  'workspaces.removeOrphan': operation({
    summary: 'Remove a labelled container that has no workspace row.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ containerId: z.string().min(1) }).strict(),
    output: z.object({ removed: z.literal(true) }),
  }),
};

export const workspaceEvents = {
  'workspaces.changed': z.object({ workspace: Workspace.nullable(), removedId: z.string().optional() }),
};
