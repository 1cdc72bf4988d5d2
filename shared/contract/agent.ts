import { z } from 'zod';
import { AgentCredentialInfo, AgentKind, AgentKindInfo } from './agent-kind';
import { operation } from './define';

/** The agents in every workspace: each kind with its pinned CLI and default credential, and the mode sessions start in. */
export const AgentSettings = z.object({
  /** Every agent kind this Nexus runs, in the registry's order (the first is the default kind). */
  kinds: z.array(AgentKindInfo),
  /** Every agent credential kind a secret may have (beside the vault's own), in the registry's order. */
  credentials: z.array(AgentCredentialInfo),
  /** The permission mode sessions of a non-bypass workspace start in, and why. */
  permissionMode: z.string(),
  permissionModeReason: z.string(),
});
export type AgentSettings = z.infer<typeof AgentSettings>;

export const agentOperations = {
  'agent.get': operation({
    summary:
      'The agent kinds this Nexus runs (label, pinned CLI, credential kinds, default credential, model endpoint, ' +
      'capabilities), the credential kinds a secret may have (label, the agent kinds each signs in) and the ' +
      'permission mode sessions start in.',
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: AgentSettings,
  }),
  'agent.setDefaultCredential': operation({
    summary:
      "Choose the vault secret an agent kind's sessions sign in with when the workspace names none (it must be one " +
      "of the kind's credential kinds); null clears it. Takes effect at the next workspace start.",
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ kind: AgentKind, secretId: z.string().min(1).max(100).nullable() }).strict(),
    output: AgentSettings,
  }),
};

export const agentEvents = {
  /** An agent kind's default credential changed. */
  'agent.changed': AgentSettings,
};
