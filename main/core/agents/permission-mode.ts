/**
 * The permission mode a session starts in. Auto mode's safety check runs on Anthropic's side and does
 * not pass a gateway or custom base URL (measured on 2.1.332: the first tool call that needs it opens
 * "Auto mode can't check actions in this session and needs your choice"), so behind
 * NEXUS_AGENT_BASE_URL the default is `default` (with the seeded allow rules). A workspace the
 * operator set to bypass runs `bypassPermissions`; its sessions hold inbox messages instead of
 * delivering them (the CLI's rule for a peer that does not attest its mode).
 */
export type PromptingMode = 'auto' | 'default' | 'acceptEdits' | 'plan' | 'dontAsk';
export type PermissionMode = PromptingMode | 'bypassPermissions';

export interface ModeChoice {
  mode: PermissionMode;
  /** One sentence for Settings → Agent and the docs. */
  reason: string;
}

export function permissionModeFor(opts: {
  /** sessions.permissionMode when the operator set one. */
  configured?: PromptingMode | undefined;
  /** The agent's model calls go somewhere other than the provider's own API (Nexus's model gateway). */
  customEndpoint?: boolean;
  bypass?: boolean;
}): ModeChoice {
  if (opts.bypass)
    return {
      mode: 'bypassPermissions',
      reason:
        'This workspace runs its sessions in bypassPermissions: nothing asks, and inbox messages to them are held, not delivered.',
    };
  if (opts.configured)
    return { mode: opts.configured, reason: `Configured: sessions.permissionMode is ${opts.configured}.` };
  if (opts.customEndpoint)
    return {
      mode: 'default',
      reason:
        "The agent's model calls go through Nexus's model gateway, where auto mode cannot run its safety check " +
        '(it runs on Anthropic’s side only), so sessions ask before tools that need permission (default mode).',
    };
  return { mode: 'auto', reason: 'Auto mode: the agent decides, with its safety check.' };
}
