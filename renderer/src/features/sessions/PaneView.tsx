import { useOpQuery } from '../../api/use-op-query';

/** A read-only snapshot of the session's terminal, refreshed on the session's change events or by hand. */
export function PaneView({ sessionId }: { sessionId: string }) {
  // Refreshed on the session's change events (api/live-updates.ts).
  const pane = useOpQuery('sessions.pane', { session: sessionId }, { retry: false });
  return (
    <section className="pane-view" aria-label="Terminal (read-only)">
      <div className="pane-actions">
        <button type="button" onClick={() => void pane.refetch()}>
          Refresh
        </button>
        {pane.data ? (
          <span className="muted">captured {new Date(pane.data.capturedAt).toLocaleTimeString()}</span>
        ) : null}
      </div>
      {pane.error ? <p className="muted">{pane.error.message}</p> : null}
      <pre className="pane" data-testid="session-pane">
        {pane.data?.text ?? ''}
      </pre>
    </section>
  );
}
