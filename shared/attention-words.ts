/**
 * The words for a session's state, in one place, pure: the Overview, the Sessions page, the tray,
 * the notifications (native and browser) and the window title all say the same thing for the same
 * state. Nothing here reads a clock, the DOM or Electron.
 */
import type { AgentState, SessionStatus } from './contract/sessions';

export type Level = 'needs_you' | 'working' | 'idle' | 'offline';

/** The four attention levels, as the Overview's counts and the Sessions filters name them. */
export const levelWords: Record<Level, string> = {
  needs_you: 'Needs you',
  working: 'Working',
  idle: 'Idle',
  offline: 'Offline',
};

/** What the agent is doing, short (a state chip): the start of the longer reason below. */
export const agentStateWords: Record<AgentState, string> = {
  starting: 'Starting',
  working: 'Working',
  waiting_permission: 'Permission needed',
  waiting_input: 'Waiting for your input',
  idle: 'Idle',
  exited: 'Agent exited',
};

/** A session that is not running, short (a state chip). */
export const sessionStatusWords: Record<Exclude<SessionStatus, 'running'>, string> = {
  creating: 'Starting',
  exited: 'Session has exited',
  error: 'Session failed',
};

/** The agent's own words that say only "it waits for permission", naming nothing more. */
const GENERIC_WAIT = /^(claude needs your permission|waiting for permission)\.?$/i;
const NAMES_TOOL = /permission to use (.+?)\.?$/i;

/**
 * Why a session waits for permission: "Claude needs your permission to use Bash" → "Permission
 * needed: Bash"; a wait the agent names otherwise (a bypassPermissions session holding a message from
 * another session: "A message from another session needs your approval") in the agent's words; a
 * wait it does not name → "Permission needed".
 */
export function permissionReason(message: string | null): string {
  const text = message?.trim().replace(/\.$/, '') ?? '';
  const tool = NAMES_TOOL.exec(text)?.[1];
  if (tool) return `${agentStateWords.waiting_permission}: ${tool}`;
  if (!text || GENERIC_WAIT.test(text)) return agentStateWords.waiting_permission;
  return text;
}

/** Why a session waits for an answer: "Waiting for your input: Which branch?". */
export function inputReason(message: string | null): string {
  const generic = !message || /^waiting for (your input|an answer)\.?$/i.test(message.trim());
  return generic ? agentStateWords.waiting_input : `${agentStateWords.waiting_input}: ${message}`;
}

/** The reason for a running session, from what its agent is doing. */
export function agentReason(agentState: AgentState, message: string | null): string {
  if (agentState === 'waiting_permission') return permissionReason(message);
  if (agentState === 'waiting_input') return inputReason(message);
  return agentStateWords[agentState];
}

/** "14:05": a time of day on this machine's clock, 24-hour, rounded up to the minute (never earlier than it). */
export function clockTime(iso: string): string {
  const d = new Date(Math.ceil(Date.parse(iso) / 60_000) * 60_000);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** A session its provider's usage limit holds (a 429 that named its reset): "Limited until 14:05". Not an error. */
export const limitedReason = (until: string): string => `Limited until ${clockTime(until)}`;

/**
 * A finished session whose branch conflicts with another finished session's (the conflict radar): "Conflicts with
 * fix-auth in 2 files: land one first". Neither agent will untangle it on its own.
 */
export const conflictReason = (other: string, files: number): string =>
  `Conflicts with ${other} in ${files} ${files === 1 ? 'file' : 'files'}: land one first`;

/** The reason for a session that is not running. */
export function statusReason(status: Exclude<SessionStatus, 'running'>, reason: string | null): string {
  return status === 'error' ? `${sessionStatusWords.error}: ${reason ?? 'unknown error'}` : sessionStatusWords[status];
}

/** "api · fix-auth": a session by its workspace and name. */
export const sessionLabel = (s: { workspaceName: string; sessionName: string }): string =>
  `${s.workspaceName} · ${s.sessionName}`;

/** "1 needs you", "3 need you". */
export const needYouCount = (n: number): string => `${n} need${n === 1 ? 's' : ''} you`;

export const NOTHING_NEEDS_YOU = 'Nothing needs you';

/** The window (and tab) title: "(2) Nexus" while something needs the operator. */
export const windowTitle = (needsYou: number): string => (needsYou > 0 ? `(${needsYou}) Nexus` : 'Nexus');

/** The tray icon's tooltip: "Nexus — 2 need you". */
export const trayTooltipWords = (needsYou: number): string =>
  needsYou > 0 ? `Nexus — ${needYouCount(needsYou)}` : 'Nexus';

/** A notification for a session that has just come to need the operator (native and browser alike). */
export function needsYouNotification(item: { reason: string; workspaceName: string; sessionName: string }): {
  title: string;
  body: string;
} {
  return { title: 'Nexus needs you', body: `${item.reason} — ${sessionLabel(item)}` };
}
