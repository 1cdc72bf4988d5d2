import { EmptyState, Page } from '../../shell/Page';

export function OverviewPage() {
  return (
    <Page title="Overview">
      <EmptyState title="Nothing needs you">
        <p>Sessions that wait for a permission, an answer or a review show up here first.</p>
      </EmptyState>
    </Page>
  );
}
