import { useRemotePending, useRemoteStatus } from './use-remote';

/** In Needs-you: connectors (Claude on the phone) waiting for your approval, with the code their page shows. */
export function WaitingConnectorsNotice() {
  const on = Boolean(useRemoteStatus().data?.publicOrigin);
  const waiting = useRemotePending(on).data?.pending ?? [];
  if (waiting.length === 0) return null;
  return (
    <div className="banner warn" role="status" data-testid="connectors-waiting">
      {waiting.map((p) => (
        <p key={p.id}>
          {p.clientName} (via {p.redirectHost}) is waiting for your approval, code <code>{p.code}</code>: approve it in
          Settings → Access.
        </p>
      ))}
    </div>
  );
}
