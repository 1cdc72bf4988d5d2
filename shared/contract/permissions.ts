import { z } from 'zod';
import { AgentCapabilities, AgentKind } from './agent-kind';
import { operation } from './define';

/** A tool call the agent asked permission for, held by core until the operator decides or it expires. */
export const PermissionRequest = z.object({
  id: z.string(),
  sessionId: z.string(),
  workspaceId: z.string(),
  toolName: z.string(),
  /** The asking session's agent kind. */
  agent: AgentKind,
  /** What happens when nobody answers in time (the kind's driver says): the call is denied, or its dialog stays. */
  unanswered: AgentCapabilities.shape.unansweredPermission,
  /** The tool's input, redacted. */
  toolInput: z.unknown(),
  askedAt: z.string(),
  expiresAt: z.string(),
  /** The approval rule that always asks about this call (docs/permissions.md); null: no rule decided it. */
  askedBy: z.string().nullable().optional(),
});
export type PermissionRequest = z.infer<typeof PermissionRequest>;

export const PermissionDecisionInput = z
  .object({
    id: z.string().min(1).max(100),
    behavior: z.enum(['allow', 'deny']),
    /** Only with deny: told to the agent as the reason. */
    note: z.string().max(2000).optional(),
  })
  .strict();
export type PermissionDecisionInput = z.infer<typeof PermissionDecisionInput>;

/** Operator only: never an MCP token of any class (the dispatcher refuses by class). */
export const permissionOperations = {
  'permissions.list': operation({
    summary: 'Permission requests waiting for the operator, optionally for one session.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ sessionId: z.string().max(100).optional() }).strict(),
    output: z.object({ requests: z.array(PermissionRequest) }),
  }),
  'permissions.decide': operation({
    summary: 'Answers a pending permission request: allow, deny, or deny with a note for the agent.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'service',
    input: PermissionDecisionInput,
    output: z.object({ request: PermissionRequest }),
  }),
};

export const permissionEvents = {
  'permissions.changed': z.object({ requests: z.array(PermissionRequest) }),
};
