import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi, useNexusEvent } from '../../api/context';

/** A read-only snapshot of the session's terminal, refreshed on the session's change events or by hand. */
export function PaneView({ sessionId }: { sessionId: string }) {
  const api = useApi();
  const client = useQueryClient();
  const key = ['sessions.pane', sessionId];
  const pane = useQuery({ queryKey: key, queryFn: () => api['sessions.pane']({ session: sessionId }), retry: false });
  useNexusEvent('sessions.changed', ({ session }) => {
    if (session?.id === sessionId) void client.invalidateQueries({ queryKey: key });
  });
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
