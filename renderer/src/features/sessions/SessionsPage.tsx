import { EmptyState, Page } from '../../shell/Page';

export function SessionsPage() {
  return (
    <Page title="Sessions">
      <EmptyState title="No sessions yet">
        <p>Sessions run the coding agent inside a workspace, one git worktree each.</p>
      </EmptyState>
    </Page>
  );
}
