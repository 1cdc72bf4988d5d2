import type { PermissionRequest } from '../../../../shared/contract/permissions';
import { PermissionRequestCard } from './PermissionRequestCard';

/** The permission requests one session's agent waits on; nothing when there are none. */
export function PendingPermissions({ requests }: { requests: readonly PermissionRequest[] }) {
  if (requests.length === 0) return null;
  return (
    <div className="pending-permissions" data-testid="pending-permissions">
      {requests.map((r) => (
        <PermissionRequestCard key={r.id} request={r} />
      ))}
    </div>
  );
}
