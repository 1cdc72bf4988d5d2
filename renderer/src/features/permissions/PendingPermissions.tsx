import { PermissionRequestCard } from './PermissionRequestCard';
import { useSessionPermissions } from './use-permissions';

/** The permission requests one session's agent waits on; nothing when there are none. */
export function PendingPermissions({ sessionId }: { sessionId: string }) {
  const requests = useSessionPermissions(sessionId);
  if (requests.length === 0) return null;
  return (
    <div className="pending-permissions" data-testid="pending-permissions">
      {requests.map((r) => (
        <PermissionRequestCard key={r.id} request={r} />
      ))}
    </div>
  );
}
