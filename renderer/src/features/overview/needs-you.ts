import type { FleetAttention } from '../../../../shared/attention';
import type { AppStatus } from '../../../../shared/contract';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import { whatNeedsYou, type NeedsYouItem } from '../../../../shared/needs-you';

/**
 * The Overview's Needs-you list: what `nexus status`, get_nexus_info and the tray list too
 * (shared/needs-you.ts), with the pending permission requests the roll-up may not have caught up
 * with yet. `app` is null where the app's state is not shown (the phone).
 */
export function needsYouItems(
  app: AppStatus | null,
  fleet: FleetAttention,
  requests: readonly PermissionRequest[],
): NeedsYouItem[] {
  return whatNeedsYou({ app, fleet, requests, review: fleet.review });
}

/** Where the operator acts on an item that is not a session: the form that fixes it, or none. */
export function needsYouAction(
  item: Exclude<NeedsYouItem, { kind: 'session' }>,
): { label: string; href: string } | null {
  switch (item.kind) {
    case 'vault':
      return {
        label: item.state === 'uninitialized' ? 'Set up the vault' : 'Unlock the vault',
        href: '#/settings/vault',
      };
    case 'review':
      return { label: 'Open the review queue', href: '#/review' };
    default:
      // Docker and NATS are fixed outside Nexus; the reason says how.
      return null;
  }
}
