import type { NeedsYouItem } from '../../../../shared/needs-you';
import { needsYouAction } from './needs-you';

/** An item of Needs you that is not a session: the vault, Docker, NATS or the review queue, and where to fix it. */
export function NeedsYouNotice({ item }: { item: Exclude<NeedsYouItem, { kind: 'session' }> }) {
  const action = needsYouAction(item);
  return (
    <li className={item.kind === 'review' ? undefined : 'needs-you-app'} data-needs-you={item.kind}>
      <strong>{item.title}</strong>
      {item.kind === 'review' ? null : <> — {item.reason}</>}
      {action ? (
        <>
          {' '}
          <a href={action.href}>{action.label}</a>
        </>
      ) : null}
    </li>
  );
}
