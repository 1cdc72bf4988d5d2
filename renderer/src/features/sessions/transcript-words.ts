import type { Session } from '../../../../shared/contract/sessions';
import type { TranscriptItem } from '../../../../shared/contract/transcript';

type ToolItem = Extract<TranscriptItem, { type: 'tool' }>;
type PermissionItem = Extract<TranscriptItem, { type: 'permission' }>;

/**
 * The words of the structured view, pure: every status is said in text (a colour only repeats it), so a screen
 * reader and a colour-blind operator read the same thing as everyone else.
 */
export const toolStatusWords: Record<ToolItem['status'], string> = {
  pending: 'Pending',
  in_progress: 'Running',
  completed: 'Done',
  failed: 'Failed',
};

export const toolStatusTone: Record<ToolItem['status'], string> = {
  pending: 'tone-warn',
  in_progress: 'tone-warn',
  completed: 'tone-ok',
  failed: 'tone-bad',
};

/** ACP's tool kinds, each with a glyph (decoration: the label beside it says the same; no emoji, which not every
 * system's fonts draw). */
const toolKinds: Record<string, { glyph: string; label: string }> = {
  read: { glyph: '≡', label: 'Read' },
  edit: { glyph: '✎', label: 'Edit' },
  delete: { glyph: '✕', label: 'Delete' },
  move: { glyph: '⇄', label: 'Move' },
  search: { glyph: '⌕', label: 'Search' },
  execute: { glyph: '▶', label: 'Run' },
  think: { glyph: '◌', label: 'Think' },
  fetch: { glyph: '⇣', label: 'Fetch' },
};

/** A tool kind as the card shows it; one the view does not know is shown by its own name. */
export const toolKind = (kind: string): { glyph: string; label: string } =>
  toolKinds[kind] ?? { glyph: '⚙', label: kind && kind !== 'other' ? kind : 'Tool' };

/** A plan entry's status (ACP: pending | in_progress | completed), as the checklist reads it. */
export function planStatus(status: string): { mark: string; words: string; tone: string } {
  if (status === 'completed') return { mark: '☑', words: 'done', tone: 'tone-ok' };
  if (status === 'in_progress') return { mark: '◐', words: 'in progress', tone: 'tone-warn' };
  if (status === 'pending') return { mark: '☐', words: 'to do', tone: '' };
  return { mark: '☐', words: status, tone: '' };
}

export const permissionOutcomeWords: Record<PermissionItem['outcome'], string> = {
  pending: 'Waiting for your answer',
  allowed: 'Allowed',
  denied: 'Denied',
  cancelled: 'Withdrawn',
};

export const permissionOutcomeTone: Record<PermissionItem['outcome'], string> = {
  pending: 'tone-bad',
  allowed: 'tone-ok',
  denied: 'tone-bad',
  cancelled: 'tone-warn',
};

/** Why a turn stopped (ACP's stop reasons), in the operator's words. */
export function turnEndWords(stopReason: string): string {
  switch (stopReason) {
    case 'end_turn':
      return 'Turn ended';
    case 'cancelled':
      return 'Turn stopped';
    case 'max_tokens':
      return 'Turn ended: the token limit was reached';
    case 'max_turn_requests':
      return 'Turn ended: the request limit was reached';
    case 'refusal':
      return 'Turn ended: the agent refused';
    case 'error':
      return 'Turn ended in an error';
    default:
      return `Turn ended (${stopReason})`;
  }
}

/** Whether a turn runs that "Stop turn" can stop: the agent works, or waits on the operator within its turn. */
export const turnRuns = (session: Session): boolean =>
  session.status === 'running' && (session.agentState === 'working' || session.agentState === 'waiting_permission');

/** The request ids the structured view answers inline (its pending permission items). */
export const inlineRequestIds = (items: readonly TranscriptItem[]): Set<string> =>
  new Set(
    items.flatMap((i) => (i.type === 'permission' && i.outcome === 'pending' && i.requestId ? [i.requestId] : [])),
  );

/** How near the bottom (px) still counts as "at the bottom": the view follows new items from there. */
export const STICK_PX = 24;

/** Whether a scroll box is at its bottom (the operator has not scrolled up to read). */
export const atBottom = (box: { scrollTop: number; scrollHeight: number; clientHeight: number }): boolean =>
  box.scrollHeight - box.scrollTop - box.clientHeight <= STICK_PX;
