import { z } from 'zod';
import { operation } from './define';
import { WorkspaceRef } from './workspaces';

/** A workspace's egress rule (docs/security.md, "Egress by allow-list"). */
export const EgressRule = z.object({
  workspaceId: z.string(),
  /** On the internal network: out only through the model gateway and the egress proxy's allow-list. */
  confined: z.boolean(),
  /** The allow-list in force: the operator's, or the defaults when none was set. */
  hosts: z.array(z.string()),
  /** The git host, the registries and the recipe's `egress` (devcontainer.json customizations.nexus). */
  defaults: z.array(z.string()),
  /** Whether `hosts` is the operator's own list. */
  custom: z.boolean(),
});
export type EgressRule = z.infer<typeof EgressRule>;

export const EgressRefusal = z.object({
  at: z.string(),
  method: z.string(),
  host: z.string(),
  port: z.number().int(),
  reason: z.string(),
});
export type EgressRefusal = z.infer<typeof EgressRefusal>;

/** `host`, `host:port`, `*.domain`, an IPv4 or bracketed IPv6 address; core checks each entry. */
const AllowEntry = z.string().trim().min(1).max(260);

export const egressOperations = {
  'egress.get': operation({
    summary: "A workspace's egress rule: whether it is confined, and the hosts its proxy lets it reach.",
    access: 'read',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: EgressRule,
  }),
  'egress.setHosts': operation({
    summary:
      "Set a workspace's egress allow-list (host, host:port, *.domain or an IP address; null: back to the defaults). " +
      'Takes effect at its next connection.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef, hosts: z.array(AllowEntry).max(200).nullable() }).strict(),
    output: EgressRule,
  }),
  'egress.refusals': operation({
    summary: "What a confined workspace's egress proxy refused, newest first (the last 200 are kept).",
    access: 'read',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef, limit: z.number().int().min(1).max(200).default(50) }).strict(),
    output: z.object({ workspaceId: z.string(), refusals: z.array(EgressRefusal) }),
  }),
};

export const egressEvents = {
  /** The proxy refused this workspace something (egress.refusals has it). */
  'egress.refused': z.object({ workspaceId: z.string() }),
};
