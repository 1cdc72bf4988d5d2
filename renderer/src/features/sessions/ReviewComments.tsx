import { useEffect, useState, type FormEvent } from 'react';
import type { ChangedFile } from '../../../../shared/contract/sessions';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** Lines picked in the diff (a line number clicked; shift-click extends). */
export interface LineSelection {
  path: string;
  start: number;
  end: number;
}

/**
 * The operator's review of the session's changes: comments on lines of changed files collect as drafts,
 * "Send to agent" delivers them as one message through the inbox (never the terminal, so no comment can
 * answer a permission prompt). Sent comments stay on their lines and say, after the agent's next turn,
 * whether those lines changed.
 */
export function ReviewComments({
  sessionId,
  files,
  selection,
}: {
  sessionId: string;
  files: ChangedFile[];
  selection: LineSelection | null;
}) {
  const list = useOpQuery('comments.list', { session: sessionId }, { retry: false });
  const refresh = [opKey('comments.list', { session: sessionId })];
  const add = useOperation('comments.add', refresh, () => setBody(''));
  const del = useOperation('comments.delete', refresh);
  const send = useOperation('comments.send', refresh);
  const [path, setPath] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [body, setBody] = useState('');
  useEffect(() => {
    if (!selection) return;
    setPath(selection.path);
    setStart(String(selection.start));
    setEnd(String(selection.end));
  }, [selection]);
  const comments = list.data?.comments ?? [];
  const drafts = comments.filter((c) => c.status === 'draft');
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const from = Number(start);
    add.mutate({ session: sessionId, path, startLine: from, endLine: end ? Number(end) : from, body });
  };
  return (
    <section className="review-comments" aria-label="Review comments" data-testid="review-comments">
      <h4>Review</h4>
      <p className="muted">Click a line number in the diff to comment on it (shift-click to take a range).</p>
      <form className="comment-form" onSubmit={submit} aria-label="Comment on lines">
        <label>
          File{' '}
          <select value={path} onChange={(e) => setPath(e.target.value)} name="path">
            <option value="">Choose a file</option>
            {files.map((f) => (
              <option key={f.path} value={f.path}>
                {f.path}
              </option>
            ))}
          </select>
        </label>
        <label>
          From line{' '}
          <input
            name="startLine"
            inputMode="numeric"
            value={start}
            onChange={(e) => setStart(e.target.value)}
            size={5}
          />
        </label>
        <label>
          to <input name="endLine" inputMode="numeric" value={end} onChange={(e) => setEnd(e.target.value)} size={5} />
        </label>
        <textarea
          name="comment"
          aria-label="Comment for the agent"
          rows={2}
          placeholder="Comment for the agent"
          value={body}
          onChange={(e) => setBody(e.target.value)}
        />
        <button type="submit" disabled={!path || !start || !body.trim() || add.isPending}>
          Add comment
        </button>
      </form>
      <ErrorBanner error={add.error ?? del.error ?? send.error} />
      {comments.length > 0 ? (
        <ul className="comment-list" aria-label="Comments">
          {comments.map((c) => (
            <li key={c.id} data-testid="review-comment" data-status={c.status}>
              <strong>
                {c.path}:{c.startLine === c.endLine ? c.startLine : `${c.startLine}-${c.endLine}`}
              </strong>{' '}
              <span className="muted">
                {c.status === 'draft'
                  ? 'draft'
                  : c.linesChanged === null
                    ? 'sent, waiting for the agent’s next turn'
                    : c.linesChanged
                      ? 'sent · its lines changed'
                      : 'sent · its lines did not change'}
              </span>
              <pre className="comment-quote">{c.quote}</pre>
              <p>{c.body}</p>
              {c.status === 'draft' ? (
                <button type="button" className="link" onClick={() => del.mutate({ id: c.id })}>
                  Delete
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="pane-actions">
        <button
          type="button"
          disabled={drafts.length === 0 || send.isPending}
          onClick={() => send.mutate({ session: sessionId })}
        >
          Send to agent{drafts.length > 0 ? ` (${drafts.length})` : ''}
        </button>
        {send.data ? (
          <span role="status" data-testid="review-sent">
            {send.data.sent} comment{send.data.sent === 1 ? '' : 's'} sent: {send.data.note}
          </span>
        ) : null}
      </div>
    </section>
  );
}
