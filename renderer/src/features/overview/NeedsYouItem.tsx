import { memo } from 'react';
import type { SessionAttention } from '../../../../shared/attention';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import { sessionLabel } from '../../../../shared/attention-words';
import { sessionHref } from '../../shell/routes';
import { PendingPermissions } from '../permissions/PendingPermissions';
import { age } from './age';

/**
 * One session that needs the operator: a link to it, why, since when, and its pending permission
 * requests. Memoised: a pushed roll-up keeps the objects of unchanged items (the query cache shares
 * structure), so an event re-renders only the items it changed; `minute` refreshes every age once
 * a minute has passed.
 */
export const NeedsYouItem = memo(function NeedsYouItem({
  item,
  requests,
}: {
  item: SessionAttention;
  requests: readonly PermissionRequest[];
  minute: number;
}) {
  return (
    <li data-session-id={item.sessionId}>
      <a href={sessionHref(item.sessionId)}>
        <strong>{sessionLabel(item)}</strong>
      </a>{' '}
      — {item.reason} <span className="muted">{age(item.since)}</span>
      <PendingPermissions requests={requests} />
    </li>
  );
});
