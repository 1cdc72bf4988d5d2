import { useState } from 'react';
import type { OutboxEntry } from '../../../../shared/contract/tracker';
import { useOpQuery } from '../../api/use-op-query';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';
import { TrackerForm } from './TrackerForm';

/**
 * Settings → Tracker: per workspace, the issue tracker its board is mirrored to (docs/tracker.md), and what still
 * waits to reach a tracker.
 */
export function TrackerSection() {
  const workspaces = useOpQuery('workspaces.list', {});
  const list = workspaces.data?.workspaces ?? [];
  const [picked, setPicked] = useState('');
  const workspace = list.some((w) => w.id === picked) ? picked : (list[0]?.id ?? '');
  return (
    <SettingsSection id="tracker" title="Tracker">
      <p className="muted">
        A workspace&apos;s tracker (Redmine or GitHub Issues) gets every comment of a linked task, and its status where
        a mapping says so. Sessions can start from its issues (Board → Start a session on issue #N).
      </p>
      <ErrorBanner error={workspaces.error} />
      {workspaces.data && list.length === 0 ? <p className="muted">No workspaces yet.</p> : null}
      {list.length > 0 ? (
        <div className="form-grid">
          <label htmlFor="tracker-workspace">Workspace</label>
          <select id="tracker-workspace" value={workspace} onChange={(e) => setPicked(e.target.value)}>
            {list.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {workspace ? <WorkspaceTracker key={workspace} workspace={workspace} /> : null}
      <Outbox />
    </SettingsSection>
  );
}

/** The form, once the workspace's settings are read (so it starts from them). */
function WorkspaceTracker({ workspace }: { workspace: string }) {
  const current = useOpQuery('tracker.get', { workspace });
  if (current.error) return <ErrorBanner error={current.error} />;
  if (!current.data) return <p>Loading…</p>;
  return <TrackerForm workspace={workspace} settings={current.data.tracker} />;
}

/** What waits to reach the trackers, and why (a refusal shows as failed; either way it is tried again). */
function Outbox() {
  const outbox = useOpQuery('tracker.outbox', {}, { refetchInterval: 5_000 });
  const waiting = (outbox.data?.entries ?? []).filter((e) => e.state !== 'sent');
  if (waiting.length === 0) return null;
  return (
    <>
      <h3>Waiting to reach a tracker ({waiting.length})</h3>
      <ul className="list" aria-label="Tracker outbox">
        {waiting.slice(0, 20).map((e) => (
          <OutboxRow key={e.id} entry={e} />
        ))}
      </ul>
    </>
  );
}

function OutboxRow({ entry: e }: { entry: OutboxEntry }) {
  return (
    <li data-testid="outbox-entry">
      {e.kind} for issue #{e.issue} <span className={`chip mirror-${e.state}`}>{e.state}</span>{' '}
      <span className="muted">
        {e.attempts} {e.attempts === 1 ? 'try' : 'tries'}
        {e.lastError ? ` — ${e.lastError}` : ''}
      </span>
    </li>
  );
}
