import { EmptyState, Page } from '../../shell/Page';

export function ReviewPage() {
  return (
    <Page title="Review">
      <EmptyState title="The review queue is empty">
        <p>Memories and skills proposed by agents wait here for your decision.</p>
      </EmptyState>
    </Page>
  );
}
