import { z } from 'zod';
import { AgentCliInfo } from './app';
import { operation } from './define';

/** The agent in every workspace: its pinned CLI, the default credential, the model endpoint and the mode sessions start in. */
export const AgentSettings = z.object({
  cli: AgentCliInfo,
  /** The vault secret (an Anthropic API key or a Claude OAuth token) workspaces use when they name none. */
  defaultCredentialId: z.string().nullable(),
  /** The Codex CLI (the second agent kind), pinned; null where this Nexus does not know it. */
  codexCli: AgentCliInfo.nullable(),
  /** The vault secret (an OpenAI API key) Codex sessions sign in with; null: none chosen. */
  defaultCodexCredentialId: z.string().nullable(),
  /** ANTHROPIC_BASE_URL for sessions (NEXUS_AGENT_BASE_URL / agent.baseUrl); null = Anthropic's API. */
  baseUrl: z.string().nullable(),
  /** The permission mode sessions of a non-bypass workspace start in, and why. */
  permissionMode: z.string(),
  permissionModeReason: z.string(),
});
export type AgentSettings = z.infer<typeof AgentSettings>;

export const agentOperations = {
  'agent.get': operation({
    summary:
      'The agent CLI in use (package, pinned version), the default agent credential, the model endpoint ' +
      'and the permission mode sessions start in.',
    access: 'read',
    fleet: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: AgentSettings,
  }),
  'agent.setDefaultCredential': operation({
    summary:
      'Choose the vault secret (kind anthropic_api_key or claude_oauth_token) workspaces give their agent ' +
      'when they name none; null clears it. Takes effect at the next workspace start.',
    access: 'operator',
    fleet: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ secretId: z.string().min(1).max(100).nullable() }).strict(),
    output: AgentSettings,
  }),
  'agent.setDefaultCodexCredential': operation({
    summary:
      'Choose the vault secret (kind openai_api_key) Codex sessions sign in with; null clears it. Takes effect at ' +
      'the next workspace start.',
    access: 'operator',
    fleet: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ secretId: z.string().min(1).max(100).nullable() }).strict(),
    output: AgentSettings,
  }),
};

export const agentEvents = {
  /** The default agent credential changed. */
  'agent.changed': AgentSettings,
};
