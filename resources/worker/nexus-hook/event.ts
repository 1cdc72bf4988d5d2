/**
 * What a hook event becomes on NATS (main/core/sessions/hooks/hook-events.ts HookMessage), shared by the
 * hook command and the hook relay: the fields Nexus reads, strings cut to 2000 characters (Stop keeps
 * last_assistant_message: the run's summary).
 */
const KEEP = [
  'hook_event_name',
  'session_id',
  'notification_type',
  'message',
  'title',
  'source',
  'reason',
  'permission_mode',
  'stop_hook_active',
  // Stop: the run's summary.
  'last_assistant_message',
  'tool_name',
];

/**
 * A permission gate: the hook event a kind's driver names in `NEXUS_HOOK_GATE` (PreToolUse for a kind that runs
 * under full access, where there is no approval dialog: the hook is the dialog). Every tool call but Nexus's own
 * platform tools becomes a PermissionRequest for the operator; the hook blocks until Nexus answers. The answer as
 * PreToolUse output (measured on Codex 0.169.0: `permissionDecision: "deny"` blocks the call and its reason reaches
 * the model as the call's output; printing nothing lets it run): an allow prints nothing, a deny its note, and no
 * decision at all (Nexus's wait ran out, core unreachable) denies: the gate fails closed, because under full access
 * "nothing" would mean "run".
 */
export function isToolGate(input: Record<string, unknown>, gateEvent: string | undefined): boolean {
  return (
    gateEvent !== undefined &&
    input.hook_event_name === gateEvent &&
    !/^mcp__nexus(-delegated)?__/.test(typeof input.tool_name === 'string' ? input.tool_name : '')
  );
}

export function gateOutput(permissionOutput: string): string {
  let decision: { behavior?: unknown; message?: unknown } | undefined;
  try {
    decision = (JSON.parse(permissionOutput) as { hookSpecificOutput?: { decision?: typeof decision } })
      .hookSpecificOutput?.decision;
  } catch {
    decision = undefined;
  }
  if (decision?.behavior === 'allow') return '';
  const reason =
    decision?.behavior === 'deny'
      ? typeof decision.message === 'string' && decision.message
        ? `Denied by the operator in Nexus: ${decision.message}`
        : 'Denied by the operator in Nexus.'
      : 'Not run: nobody decided in Nexus in time (the gate fails closed).';
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  });
}

/** Nexus session and workspace ids: what the relay accepts from a header or its arguments. */
export const ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The message published on nexus.hooks.<workspaceId>, stamped now. */
export function hookMessage(sessionId: string, workspaceId: string, input: Record<string, unknown>): string {
  const event: Record<string, unknown> = {};
  for (const k of KEEP) {
    const v = input[k];
    if (v !== undefined) event[k] = typeof v === 'string' ? v.slice(0, 2000) : v;
  }
  return JSON.stringify({ sessionId, workspaceId, at: new Date().toISOString(), event });
}

/** The question a PermissionRequest puts to core on nexus.permissions.<workspaceId>. */
/**
 * The question put to core. `askId` (the relay's, random per question) lets the relay ask the same question again
 * while it waits: a core that holds it takes the new asker's reply subject, and a core started since (the one that
 * held it was killed) holds it anew, so no question dies with a core.
 */
export function permissionAsk(
  sessionId: string,
  workspaceId: string,
  input: Record<string, unknown>,
  askId?: string,
): string {
  return JSON.stringify({
    sessionId,
    workspaceId,
    ...(askId ? { askId } : {}),
    at: new Date().toISOString(),
    toolName: typeof input.tool_name === 'string' ? input.tool_name.slice(0, 200) : 'unknown',
    toolInput: input.tool_input ?? null,
  });
}

/**
 * The hook's output for core's answer: the decision for an allow/deny, else nothing (an empty
 * output leaves the dialog in the pane).
 */
export function decisionOutput(answer: string | null): string {
  if (!answer) return '';
  let d: { behavior?: unknown; message?: unknown };
  try {
    d = JSON.parse(answer) as typeof d;
  } catch {
    return '';
  }
  if (d.behavior !== 'allow' && d.behavior !== 'deny') return '';
  const decision =
    d.behavior === 'deny' && typeof d.message === 'string' && d.message
      ? { behavior: 'deny', message: d.message.slice(0, 2000) }
      : { behavior: d.behavior };
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });
}
