import { useState, type FormEvent } from 'react';
import type { BoardTask } from '../../../../shared/contract/platform';
import type { MirrorState } from '../../../../shared/contract/tracker';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { boardKey } from './use-board';

/** The task's tracker issue, linked; or, for a task of a workspace, a way to link one. */
export function TaskIssue({ task }: { task: BoardTask }) {
  const [number, setNumber] = useState('');
  const link = useOperation('tracker.link', [boardKey]);
  if (task.issue)
    return (
      <p data-testid="task-issue">
        Issue{' '}
        <a href={task.issue.url} target="_blank" rel="noreferrer">
          {task.issue.ref}
        </a>
        {task.issue.title ? ` ${task.issue.title}` : ''}
      </p>
    );
  if (!task.workspaceId) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    link.mutate({ taskId: task.id, issue: number.trim() });
  };
  return (
    <details className="task-link-issue">
      <summary>Link to a tracker issue</summary>
      <form onSubmit={submit} aria-label={`Link ${task.title} to an issue`}>
        <input
          aria-label="Issue number"
          inputMode="numeric"
          placeholder="#42"
          value={number}
          onChange={(e) => setNumber(e.target.value)}
        />{' '}
        <button type="submit" disabled={link.isPending || !/^#?[1-9][0-9]*$/.test(number.trim())}>
          Link
        </button>
      </form>
      <ErrorBanner error={link.error} />
    </details>
  );
}

const mirrorText: Record<MirrorState, (ref: string) => string> = {
  pending: (ref) => `pending to ${ref}`,
  failed: (ref) => `${ref} refused it; retrying`,
  sent: (ref) => `on ${ref}`,
};

/** A comment's way to the tracker: pending (stored, not there yet), failed (refused; still retried) or sent. */
export function MirrorBadge({ state, issueRef }: { state: MirrorState; issueRef: string }) {
  return (
    <span className={`chip mirror-${state}`} data-testid="mirror-badge" data-state={state}>
      {mirrorText[state](issueRef)}
    </span>
  );
}
