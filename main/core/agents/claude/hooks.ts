import type { AgentContainerSetupInput } from '../driver';

/** The events Nexus declares in Claude Code's user-level settings (sessions/hooks/hook-events.ts maps them to states). */
export const CLAUDE_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PermissionRequest',
  'Notification',
  'Stop',
  'StopFailure',
  'SessionEnd',
] as const;

/** The ones the CLI does not post over HTTP: they stay command hooks (which hand them to the relay). */
const COMMAND_HOOK_EVENTS: ReadonlySet<string> = new Set(['SessionStart', 'StopFailure']);

const NOTIFICATION_MATCHER = 'permission_prompt|idle_prompt|elicitation_dialog|agent_needs_input';

/** Nexus's hook entries by event, for the container user's settings.json (first-run.ts merges them in). */
export function claudeHookEntries(input: AgentContainerSetupInput): Record<string, unknown[]> {
  const hooks: Record<string, unknown[]> = {};
  for (const event of CLAUDE_HOOK_EVENTS)
    hooks[event] = [
      {
        ...(event === 'Notification' ? { matcher: NOTIFICATION_MATCHER } : {}),
        hooks: [
          input.hook(
            event,
            // The agent's own hook timeout outlasts Nexus's wait, so Nexus always steps aside first.
            event === 'PermissionRequest' ? input.permissionTimeoutSeconds : 10,
            COMMAND_HOOK_EVENTS.has(event) ? 'command' : 'http',
          ),
        ],
      },
    ];
  return hooks;
}
