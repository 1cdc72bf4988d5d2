import type { PreviewScreenshot } from '../../../../shared/contract/previews';
import { useOpQuery } from '../../api/use-op-query';

/**
 * The session's live previews: each port its app listens on, as a link to its own origin (a new window in
 * Electron, a tab in a browser), and the screenshots of them taken at the last turn end. The phone shows the
 * screenshots only (a preview's address is this computer's loopback).
 */
export function PreviewsPanel({
  sessionId,
  running,
  onPhone,
}: {
  sessionId: string;
  running: boolean;
  onPhone: boolean;
}) {
  const list = useOpQuery(
    'previews.list',
    { session: sessionId },
    { retry: false, enabled: running && !onPhone, refetchInterval: 10_000 },
  );
  const shots = useOpQuery('previews.screenshots', { session: sessionId }, { retry: false });
  const previews = list.data?.previews ?? [];
  const latest = lastTurn(shots.data?.screenshots ?? []);
  if (onPhone && latest.length === 0) return null;
  return (
    <section className="previews" aria-label="Previews" data-testid="session-previews">
      <h3>Previews</h3>
      {onPhone ? null : (
        <>
          {list.error ? <p className="muted">{list.error.message}</p> : null}
          {list.data?.note ? <p className="muted">{list.data.note}</p> : null}
          {!running ? <p className="muted">The session is not running.</p> : null}
          <ul className="preview-list">
            {previews.map((p) => (
              <li key={p.port} data-testid="preview" data-port={p.port}>
                <a href={p.url} target="_blank" rel="noopener noreferrer">
                  Port {p.port}
                </a>{' '}
                <span className="muted">
                  {p.process ?? 'a process'} · {p.label ? `${p.label} · ` : ''}
                  {p.attributedBy === 'cwd'
                    ? 'runs in the worktree'
                    : p.attributedBy === 'ports'
                      ? "in the session's ports"
                      : "the workspace's (forwardPorts)"}
                  {p.loopbackOnly ? ' · 127.0.0.1 only (slower)' : ''}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      <PreviewShots shots={latest} label="At the last turn end" />
    </section>
  );
}

/** The screenshots of the newest turn end that has any. */
export function lastTurn(shots: readonly PreviewScreenshot[], skip = 0): PreviewScreenshot[] {
  const seqs = [...new Set(shots.map((s) => s.seq))].sort((a, b) => b - a);
  const seq = seqs[skip];
  return seq === undefined ? [] : shots.filter((s) => s.seq === seq);
}

export function PreviewShots({ shots, label }: { shots: readonly PreviewScreenshot[]; label: string }) {
  if (shots.length === 0) return null;
  return (
    <figure className="preview-shots" data-testid="preview-shots">
      <figcaption className="muted">
        {label} ({new Date(shots[0]?.at ?? 0).toLocaleTimeString()})
      </figcaption>
      {shots.map((s) => (
        <img
          key={s.id}
          src={s.image}
          alt={`Screenshot of port ${s.port} at turn end ${s.seq}`}
          data-testid="preview-shot"
          data-seq={s.seq}
          loading="lazy"
        />
      ))}
    </figure>
  );
}

/** In the review of the turns: the previews at the turn end before the last and at the last, side by side. */
export function PreviewBeforeAfter({ sessionId }: { sessionId: string }) {
  const shots = useOpQuery('previews.screenshots', { session: sessionId }, { retry: false });
  const all = shots.data?.screenshots ?? [];
  const after = lastTurn(all);
  const before = lastTurn(all, 1);
  if (after.length === 0) return null;
  return (
    <div className="preview-before-after" data-testid="preview-before-after">
      {before.length > 0 ? <PreviewShots shots={before} label="Before" /> : null}
      <PreviewShots shots={after} label="After" />
    </div>
  );
}
