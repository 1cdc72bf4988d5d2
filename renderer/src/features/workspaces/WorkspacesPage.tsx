import { useState } from 'react';
import { EmptyState, Page } from '../../shell/Page';
import { useAppInfo } from '../../shell/use-app-info';
import { CreateWorkspaceDialog } from './CreateWorkspaceDialog';
import { OrphanList } from './OrphanList';
import { WorkspaceRow } from './WorkspaceRow';
import { useDelegations, useWorkspaceProgress, useWorkspaces } from './use-workspaces';
import './workspaces.css';
import { ErrorBanner } from '../../shell/ErrorBanner';

export function WorkspacesPage() {
  const list = useWorkspaces();
  const progress = useWorkspaceProgress();
  const delegations = useDelegations();
  const info = useAppInfo();
  const [creating, setCreating] = useState(false);
  const workspaces = list.data?.workspaces ?? [];
  const dockerDown = info.data?.docker.state === 'unavailable';
  return (
    <Page
      title="Workspaces"
      actions={
        <button type="button" className="primary" onClick={() => setCreating(true)} disabled={dockerDown}>
          New workspace
        </button>
      }
    >
      {/* The app-wide banner (shell/Banners) says when Docker is down; here creation is disabled meanwhile. */}
      {list.isPending ? <p>Loading…</p> : null}
      <ErrorBanner error={list.error} />
      {list.data && workspaces.length === 0 ? (
        <EmptyState title="No workspaces yet">
          <p>A workspace is a container holding a clone of one repository.</p>
        </EmptyState>
      ) : (
        <ul className="list" aria-label="Workspaces">
          {workspaces.map((w) => (
            <WorkspaceRow
              key={w.id}
              workspace={w}
              progress={progress[w.id]}
              delegation={delegations.data?.credentials.find((c) => c.workspaceId === w.id && c.state === 'active')}
            />
          ))}
        </ul>
      )}
      {dockerDown ? null : <OrphanList />}
      {creating ? <CreateWorkspaceDialog onClose={() => setCreating(false)} onCreated={() => undefined} /> : null}
    </Page>
  );
}
