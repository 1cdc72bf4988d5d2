import type { Session } from '../../../../shared/contract/sessions';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';

/**
 * The conflict radar, from this session's side: which other sessions' branches (or the base) its branch would
 * conflict with, in which files and lines; where it stands in the suggested landing order; "Land" merges it
 * into the base (refused with the conflicting files when it would conflict).
 */
export function RadarPanel({ session, canLand }: { session: Session; canLand: boolean }) {
  const radar = useOpQuery('radar.get', { workspace: session.workspaceId }, { retry: false });
  const land = useOperation('radar.land', [opKey('radar.get', { workspace: session.workspaceId })]);
  const r = radar.data;
  const mine = (r?.conflicts ?? []).filter((c) => c.aSessionId === session.id || c.bSessionId === session.id);
  const place = r ? r.landingOrder.findIndex((o) => o.sessionId === session.id) : -1;
  return (
    <section className="radar" aria-label="Conflict radar" data-testid="session-radar">
      <h3>Conflict radar</h3>
      {mine.length === 0 ? (
        <p className="muted" data-testid="radar-clear">
          No conflict with the other sessions or {r?.base ?? 'the base'}.
        </p>
      ) : (
        <ul>
          {mine.map((c) => {
            const other = c.aSessionId === session.id ? c.bBranch : c.aBranch;
            const ours = c.aSessionId === session.id;
            return (
              <li key={`${c.aBranch} ${c.bBranch}`} data-testid="radar-conflict">
                Conflicts with <strong>{c.bSessionId === null ? `the base (${other})` : other}</strong>
                {c.needsYou ? <span className="chip needs-you"> needs you</span> : null} in{' '}
                {c.files.map((f, i) => (
                  <span key={f.path}>
                    {i > 0 ? ', ' : ''}
                    <code>{f.path}</code>
                    {f.hunks.length > 0
                      ? ` (lines ${f.hunks
                          .map((h) => (ours ? h.ours : h.theirs))
                          .map((s) => (s.lines > 1 ? `${s.start}-${s.start + s.lines - 1}` : `${s.start}`))
                          .join(', ')})`
                      : ' (whole file)'}
                  </span>
                ))}
              </li>
            );
          })}
        </ul>
      )}
      {r && place >= 0 ? (
        <p className="muted">
          Suggested landing order: {place + 1} of {r.landingOrder.length}.
        </p>
      ) : null}
      {canLand ? (
        <div className="pane-actions">
          <button type="button" disabled={land.isPending} onClick={() => land.mutate({ session: session.id })}>
            Land on {r?.base ?? 'the base'}
          </button>
          {land.data ? (
            <span role="status" data-testid="land-result">
              {land.data.how === 'up_to_date'
                ? `${land.data.base} already has it.`
                : `Landed on ${land.data.base} (${land.data.how === 'merge' ? 'merge commit' : 'fast-forward'}) at ${land.data.head.slice(0, 8)}; push as usual.`}
            </span>
          ) : null}
        </div>
      ) : null}
      <ErrorBanner error={land.error ?? radar.error} />
    </section>
  );
}
