import { EmptyState, Page } from '../../shell/Page';
import { age } from './age';
import { useBrowserNotifications } from './browser-notifications';
import { useAttention } from './use-attention';

export function OverviewPage() {
  // Inside Electron the main process shows native notifications; the browser offers its own.
  const nativeNotifications = window.nexus !== undefined;
  const attention = useAttention();
  const fleet = attention.data;
  const notifications = useBrowserNotifications(fleet, !nativeNotifications);
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
      {attention.error ? (
        <p role="alert" className="banner bad">
          {attention.error.message}
        </p>
      ) : null}
      {!fleet ? <p>Loading…</p> : null}
      {fleet ? (
        <>
          <section aria-labelledby="needs-you-title" className="needs-you">
            <h2 id="needs-you-title">Needs you ({fleet.counts.needs_you})</h2>
            {fleet.needsYou.length === 0 ? (
              <EmptyState title="Nothing needs you">
                <p>Sessions that wait for a permission, an answer or a fix show up here first.</p>
              </EmptyState>
            ) : (
              <ul className="list" data-testid="needs-you-list">
                {fleet.needsYou.map((item) => (
                  <li key={item.sessionId}>
                    <a href={`#/sessions/${item.sessionId}`}>
                      <strong>
                        {item.workspaceName} · {item.sessionName}
                      </strong>
                    </a>{' '}
                    — {item.reason} <span className="muted">{age(item.since)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-label="Fleet" className="fleet-counts">
            <dl className="facts">
              <dt>Working</dt>
              <dd data-testid="count-working">{fleet.counts.working}</dd>
              <dt>Idle</dt>
              <dd data-testid="count-idle">{fleet.counts.idle}</dd>
              <dt>Offline</dt>
              <dd data-testid="count-offline">{fleet.counts.offline}</dd>
              <dt>Review queue</dt>
              <dd data-testid="count-review">
                {fleet.review.memories} memories, {fleet.review.skills} skills
              </dd>
            </dl>
          </section>
        </>
      ) : null}
    </Page>
  );
}
