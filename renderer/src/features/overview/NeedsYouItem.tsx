import type { SessionAttention } from '../../../../shared/attention';
import { PendingPermissions } from '../permissions/PendingPermissions';
import { age } from './age';

/** One session that needs the operator: a link to it, why, since when, and its pending permission requests. */
export function NeedsYouItem({ item }: { item: SessionAttention }) {
  return (
    <li data-session-id={item.sessionId}>
      <a href={`#/sessions/${item.sessionId}`}>
        <strong>
          {item.workspaceName} · {item.sessionName}
        </strong>
      </a>{' '}
      — {item.reason} <span className="muted">{age(item.since)}</span>
      <PendingPermissions sessionId={item.sessionId} />
    </li>
  );
}
