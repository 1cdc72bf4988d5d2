import { useState } from 'react';
import type { SessionChanges } from '../../../../shared/contract/sessions';
import { useOpQuery } from '../../api/use-op-query';
import { Banner } from '../../shell/ErrorBanner';
import { ChangesDiff } from './ChangesDiff';
import { ReviewComments, type LineSelection } from './ReviewComments';
import './changes.css';

const PAGE = 50;

/** What the session changed: commits since its base, files with counts, the unified diff. Refreshed on its Stop hook. */
export function ChangesPanel({ sessionId }: { sessionId: string }) {
  const [offset, setOffset] = useState(0);
  const [whole, setWhole] = useState<string | null>(null);
  const [selection, setSelection] = useState<LineSelection | null>(null);
  const pick = (path: string, line: number, extend: boolean): void =>
    setSelection((old) =>
      extend && old?.path === path
        ? { path, start: Math.min(old.start, line), end: Math.max(old.start, line) }
        : { path, start: line, end: line },
    );
  // Refreshed on the session's `sessions.diffChanged` events (api/live-updates.ts).
  const diff = useOpQuery(
    'sessions.diff',
    whole ? { session: sessionId, file: whole } : { session: sessionId, offset, limit: PAGE },
    { retry: false },
  );
  const d = diff.data;
  return (
    <section className="changes" aria-label="Changes" data-testid="session-changes">
      <div className="pane-actions">
        <h3>Changes</h3>
        <button type="button" onClick={() => void diff.refetch()} disabled={diff.isFetching}>
          Refresh
        </button>
        {whole ? (
          <button type="button" onClick={() => setWhole(null)}>
            Back to all files
          </button>
        ) : null}
      </div>
      {diff.error ? <p className="muted">{diff.error.message}</p> : null}
      {d ? <ChangesSummaryLine changes={d} /> : diff.isLoading ? <p className="muted">Reading the changes…</p> : null}
      {d && d.commits.length > 0 ? (
        <ol className="changes-commits" aria-label="Commits">
          {d.commits.map((c) => (
            <li key={c.sha}>
              <code>{c.sha.slice(0, 8)}</code> {c.subject} <span className="muted">— {c.author}</span>
            </li>
          ))}
          {d.commitsTruncated ? <li className="muted">…older commits not listed</li> : null}
        </ol>
      ) : null}
      {d && d.files.length > 0 ? (
        <table className="changes-files" aria-label="Changed files">
          <tbody>
            {d.files.map((f) => {
              const patch = d.patches.find((p) => p.path === f.path);
              return (
                <tr key={f.path} data-file={f.path}>
                  <td className={`status ${f.status}`}>{f.status}</td>
                  <td>
                    {f.oldPath ? <span className="muted">{f.oldPath} → </span> : null}
                    {f.path}
                  </td>
                  <td className="count add">{f.binary ? 'binary' : `+${f.additions ?? 0}`}</td>
                  <td className="count del">{f.binary ? '' : `−${f.deletions ?? 0}`}</td>
                  <td>
                    {!whole && (patch?.truncated || !patch) ? (
                      <button type="button" className="link" onClick={() => setWhole(f.path)}>
                        Show whole file
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {d?.note ? (
        <Banner tone="warn" note testId="changes-note">
          {d.note}
        </Banner>
      ) : null}
      {d && !whole ? (
        <div className="pane-actions">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous files
          </button>
          <button
            type="button"
            disabled={offset + d.files.length >= d.summary.changedFiles}
            onClick={() => setOffset(offset + PAGE)}
          >
            Next files
          </button>
        </div>
      ) : null}
      {d ? <ReviewComments sessionId={sessionId} files={d.files} selection={selection} /> : null}
      {d && d.patches.length > 0 ? <ChangesDiff patches={d.patches} onLine={pick} /> : null}
    </section>
  );
}

function ChangesSummaryLine({ changes }: { changes: SessionChanges }) {
  const s = changes.summary;
  return (
    <p data-testid="changes-summary">
      <strong>{changes.branch}</strong>: {s.ahead} commit{s.ahead === 1 ? '' : 's'} ahead of {s.base}, {s.behind} behind
      · {s.changedFiles} file{s.changedFiles === 1 ? '' : 's'} changed <span className="count add">+{s.additions}</span>{' '}
      <span className="count del">−{s.deletions}</span>
      {s.uncommitted ? <span className="muted"> · includes uncommitted changes (not pushed)</span> : null}
      {s.unpushed !== null && s.unpushed > 0 ? <span className="muted"> · {s.unpushed} not pushed</span> : null}
    </p>
  );
}
