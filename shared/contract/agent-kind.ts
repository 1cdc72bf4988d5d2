import { z } from 'zod';
import { AgentCredentialKind } from './vault';

/**
 * Which agent CLI a session runs: a kind of core's agent registry (`agents.kinds` in `agent.get` lists them with
 * their labels and capabilities; docs/agents.md). The contract checks the shape; core refuses a kind it has no
 * driver for, so a new kind needs no contract change.
 */
export const AgentKind = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, 'an agent kind (see agent.get): lowercase letters, digits and dashes');
export type AgentKind = z.infer<typeof AgentKind>;

/** The agent CLI workers run for a kind: the pinned package and the version in use. */
export const AgentCliInfo = z.object({
  package: z.string(),
  version: z.string(),
  /** `configured` (its cliDir setting / env), `installed` (by Nexus or the install script), null before first use. */
  source: z.enum(['configured', 'installed']).nullable(),
});
export type AgentCliInfo = z.infer<typeof AgentCliInfo>;

/** What differs between kinds that the UI and other surfaces must know (each kind's driver declares it). */
export const AgentCapabilities = z.object({
  /**
   * A permission request nobody answers in time: `denied` (the kind's gate fails closed: the call is not run) or
   * `stays_in_terminal` (the agent's own dialog stays open in its terminal).
   */
  unansweredPermission: z.enum(['denied', 'stays_in_terminal']),
  /** Whether the agent confirms a message it took (`delivered`, `held`, …) or Nexus can only report it `queued`. */
  messageReceipts: z.boolean(),
  /**
   * Whether its sessions report what they do as structured updates (sessions.transcript: messages, plan, tool calls):
   * then that is their view and their window is a plain log; else the agent's own terminal UI is the view.
   */
  structured: z.boolean(),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilities>;

/** One agent kind as Settings → Agent, About and the forms show it. */
export const AgentKindInfo = z.object({
  kind: AgentKind,
  label: z.string(),
  cli: AgentCliInfo,
  /** The vault secret kinds that sign it in (their labels: AgentSettings.credentials). */
  credentialKinds: z.array(AgentCredentialKind),
  /** The vault secret its sessions sign in with when the workspace names none; null: none chosen (or gone). */
  defaultCredentialId: z.string().nullable(),
  /** The model endpoint its sessions use (tests: the stand-in); null = the provider's own API. */
  baseUrl: z.string().nullable(),
  capabilities: AgentCapabilities,
});
export type AgentKindInfo = z.infer<typeof AgentKindInfo>;

/**
 * An agent credential kind as the secret form and Settings → Agent show it: its label ("Anthropic API key") and the
 * agent kinds it signs in, as the drivers declare it.
 */
export const AgentCredentialInfo = z.object({
  kind: AgentCredentialKind,
  label: z.string(),
  agents: z.array(AgentKind),
});
export type AgentCredentialInfo = z.infer<typeof AgentCredentialInfo>;
