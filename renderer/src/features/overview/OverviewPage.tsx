import { useMemo } from 'react';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import type { NeedsYouItem as NeedsYou } from '../../../../shared/needs-you';
import { useOpQuery } from '../../api/use-op-query';
import { NOTHING_NEEDS_YOU, levelWords } from '../../../../shared/attention-words';
import { EmptyState, Page } from '../../shell/Page';
import { PendingRows, useProgressive } from '../../shell/progressive';
import { bySession, usePermissions } from '../permissions/use-permissions';
import { useNotificationPermission } from './browser-notifications';
import { FirstRunChecklist } from './FirstRunChecklist';
import { NeedsYouItem } from './NeedsYouItem';
import { NeedsYouNotice } from './NeedsYouNotice';
import { needsYouItems } from './needs-you';
import { useAttention } from './use-attention';
import { useFirstRun } from './use-first-run';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { WaitingConnectorsNotice } from '../settings/WaitingConnectorsNotice';
import { UsageFacts } from '../sessions/UsageFacts';
import { UsageLimited } from './UsageLimited';

/** One empty list for every item without requests, so a memoised item sees the same one each time. */
const NO_REQUESTS: readonly PermissionRequest[] = [];

/**
 * What needs you, the fleet's counts and, on a new Nexus, the first-run checklist. On the phone
 * (`onPhone`) there is no checklist and no app state: the vault, Docker and the first steps are done
 * on the computer, and the phone may not read them.
 */
export function OverviewPage({ onPhone = false }: { onPhone?: boolean }) {
  // Inside Electron the main process shows native notifications; the browser offers its own.
  const nativeNotifications = window.nexus !== undefined;
  const attention = useAttention();
  const fleet = attention.data;
  const app = useOpQuery('app.info', {}, { enabled: !onPhone }).data ?? null;
  const firstRun = useFirstRun(!onPhone);
  const requests = usePermissions().data?.requests ?? NO_REQUESTS;
  const needsYou = useMemo(() => (fleet ? needsYouItems(app, fleet, requests) : []), [app, fleet, requests]);
  const pending = useMemo(() => bySession(requests), [requests]);
  const minute = Math.floor(Date.now() / 60_000);
  const notifications = useNotificationPermission();
  const offerNotifications = !nativeNotifications && notifications.permission === 'default';
  return (
    <Page
      title="Overview"
      actions={
        offerNotifications ? (
          <button type="button" onClick={() => void notifications.request()}>
            Enable desktop notifications
          </button>
        ) : null
      }
    >
      <ErrorBanner error={attention.error} />
      {firstRun ? <FirstRunChecklist steps={firstRun} /> : null}
      {!fleet ? <p>Loading…</p> : null}
      {fleet ? (
        <>
          <section aria-labelledby="needs-you-title" className="needs-you">
            <h2 id="needs-you-title">
              {levelWords.needs_you} ({needsYou.length})
            </h2>
            <WaitingConnectorsNotice />
            {needsYou.length === 0 ? (
              <EmptyState title={NOTHING_NEEDS_YOU}>
                <p>
                  Sessions that wait for a permission, an answer or a fix show up here first
                  {onPhone ? '' : ', and so does the vault, Docker or NATS when they stop work'}.
                </p>
              </EmptyState>
            ) : (
              <NeedsYouList items={needsYou} pending={pending} minute={minute} />
            )}
          </section>
          <UsageLimited sessions={fleet.sessions} />
          <section aria-label="Fleet" className="fleet-counts">
            <dl className="facts">
              <dt>{levelWords.working}</dt>
              <dd data-testid="count-working">{fleet.counts.working}</dd>
              <dt>{levelWords.idle}</dt>
              <dd data-testid="count-idle">{fleet.counts.idle}</dd>
              <dt>{levelWords.offline}</dt>
              <dd data-testid="count-offline">{fleet.counts.offline}</dd>
              <dt>Review queue</dt>
              <dd data-testid="count-review">
                {fleet.review.memories} memories, {fleet.review.skills} skills
              </dd>
            </dl>
            <UsageFacts scope={{}} label="Model use today" />
          </section>
        </>
      ) : null}
    </Page>
  );
}

/** The Needs-you items; a long list renders those in view, then more as the operator scrolls. */
function NeedsYouList({
  items,
  pending,
  minute,
}: {
  items: NeedsYou[];
  pending: ReadonlyMap<string, readonly PermissionRequest[]>;
  minute: number;
}) {
  const { shown, more, showAll } = useProgressive(items.length);
  const rest = items.length - shown;
  return (
    <ul className="list" data-testid="needs-you-list">
      {(rest > 0 ? items.slice(0, shown) : items).map((item) =>
        item.kind === 'session' ? (
          <NeedsYouItem
            key={item.session.sessionId}
            item={item.session}
            requests={pending.get(item.session.sessionId) ?? NO_REQUESTS}
            minute={minute}
          />
        ) : (
          <NeedsYouNotice key={item.kind} item={item} />
        ),
      )}
      {rest > 0 ? (
        <PendingRows as="li" rows={rest} label={`Show the other ${rest}`} more={more} showAll={showAll} />
      ) : null}
    </ul>
  );
}
