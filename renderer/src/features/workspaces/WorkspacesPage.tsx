import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, Page } from '../../shell/Page';

export function WorkspacesPage() {
  const api = useApi();
  const list = useQuery({ queryKey: ['workspaces.list'], queryFn: () => api['workspaces.list']({}) });
  const workspaces = list.data?.workspaces ?? [];
  return (
    <Page title="Workspaces">
      {list.isPending ? <p>Loading…</p> : null}
      {list.error ? <p role="alert">{list.error.message}</p> : null}
      {list.data && workspaces.length === 0 ? (
        <EmptyState title="No workspaces yet">
          <p>A workspace is a container holding a clone of one repository.</p>
        </EmptyState>
      ) : (
        <ul className="list">
          {workspaces.map((w) => (
            <li key={w.id}>
              {w.name} <span className={`chip chip-${w.status}`}>{w.status}</span>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
