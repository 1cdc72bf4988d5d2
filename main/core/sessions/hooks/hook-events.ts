import { z } from 'zod';
import type { AgentState } from '../../../../shared/contract/sessions';

/**
 * Agent state comes from the agent's hooks, never from the screen. This is the whole mapping
 * (docs/sessions.md, "State from hooks"); events it does not name leave the state as it is.
 * "working" again on UserPromptSubmit / PreToolUse / PostToolUse (and "idle" on Stop), so a state
 * never sticks on "waiting" after the person answered in the terminal. idle_prompt is idle.
 */

/** What the hook relay (or the hook command) publishes on nexus.hooks.<workspaceId>. */
export const HookMessage = z.object({
  sessionId: z.string().min(1).max(100),
  workspaceId: z.string().min(1).max(100),
  at: z.iso.datetime(),
  /** The relay process's random id and its count of events: a copy it sent again has the same two. */
  relayRun: z.string().max(40).optional(),
  seq: z.number().int().optional(),
  event: z
    .object({
      hook_event_name: z.string().max(100),
      session_id: z.string().max(200).optional(),
      notification_type: z.string().max(100).optional(),
      message: z.string().max(2000).optional(),
      title: z.string().max(2000).optional(),
      source: z.string().max(100).optional(),
      reason: z.string().max(2000).optional(),
    })
    .loose(),
});
export type HookMessage = z.infer<typeof HookMessage>;

/**
 * What the hook relay publishes first when it starts: how often its loop saw it die; after a long
 * NATS outage, how many events it dropped. `probe`: its check that someone listens (ignored).
 */
export const RelayNotice = z.object({
  relay: z.object({
    crashes: z.number().int().min(0).default(0),
    probe: z.boolean().optional(),
    /** Events it could not keep while NATS was down (more than it holds). */
    dropped: z.number().int().min(0).optional(),
    pid: z.number().int().optional(),
    at: z.iso.datetime().optional(),
  }),
});

export interface AgentStateChange {
  agentState: AgentState;
  message: string | null;
}

const WORKING = new Set(['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'SubagentStart']);

/** `speaker`: the name the agent gives itself in its own notifications (its driver's), e.g. "Claude". */
export function agentStateFromHook(event: HookMessage['event'], speaker = 'The agent'): AgentStateChange | null {
  const name = event.hook_event_name;
  const message = event.message ?? null;
  if (WORKING.has(name)) return { agentState: 'working', message: null };
  switch (name) {
    case 'SessionStart':
      return { agentState: 'idle', message: `Session started (${event.source ?? 'startup'})` };
    case 'PermissionRequest':
      // The event names the tool at once; the same words as the permission_prompt notification that
      // follows about 6 s later, so the reason (and its notification) does not change twice.
      return {
        agentState: 'waiting_permission',
        message:
          typeof event.tool_name === 'string' && event.tool_name
            ? `${speaker} needs your permission to use ${event.tool_name.slice(0, 200)}`
            : (message ?? 'Waiting for permission'),
      };
    case 'Elicitation':
      return { agentState: 'waiting_input', message: message ?? 'Waiting for an answer' };
    case 'Stop':
      return { agentState: 'idle', message: null };
    case 'StopFailure':
      return { agentState: 'idle', message: message ?? 'The turn ended with an error' };
    case 'SessionEnd':
      return { agentState: 'exited', message: `Session ended (${event.reason ?? 'unknown'})` };
    case 'Notification':
      switch (event.notification_type) {
        case 'permission_prompt':
          return { agentState: 'waiting_permission', message: message ?? 'Waiting for permission' };
        case 'idle_prompt':
          // The prompt is simply open: idle, never "needs you".
          return { agentState: 'idle', message: null };
        case 'elicitation_dialog':
        case 'agent_needs_input':
          return { agentState: 'waiting_input', message: message ?? 'Waiting for your input' };
        default:
          return null;
      }
    default:
      return null;
  }
}

const NAMES_TOOL = /permission to use ./i;

/**
 * The permission_prompt notification that follows a PermissionRequest may not name the tool ("Claude
 * needs your permission"); then the session keeps the message that did, so its reason ("Permission
 * needed: Bash") and its notification do not change while it is the same wait.
 */
export function keepNamedTool(
  previous: { agentState: AgentState; message: string | null },
  change: AgentStateChange,
): AgentStateChange {
  const sameWait = previous.agentState === 'waiting_permission' && change.agentState === 'waiting_permission';
  if (sameWait && !NAMES_TOOL.test(change.message ?? '') && NAMES_TOOL.test(previous.message ?? ''))
    return { ...change, message: previous.message };
  return change;
}
