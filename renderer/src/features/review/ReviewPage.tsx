import { EmptyState, Page } from '../../shell/Page';
import { MemoryProposal } from './MemoryProposal';
import { SkillDraft } from './SkillDraft';
import { useReviewQueue } from './use-review-queue';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** What agents want to learn waits here: pending memories and draft skills. */
export function ReviewPage() {
  const queue = useReviewQueue();
  const data = queue.data;
  const empty = data && data.memories.length === 0 && data.skills.length === 0;
  return (
    <Page title="Review">
      {queue.isPending ? <p>Loading…</p> : null}
      <ErrorBanner error={queue.error} />
      {empty ? (
        <EmptyState title="The review queue is empty">
          <p>Memories and skills proposed by agents wait here for your decision.</p>
        </EmptyState>
      ) : null}
      {data && data.memories.length > 0 ? (
        <section aria-labelledby="review-memories">
          <h2 id="review-memories">Memories ({data.counts.pendingMemories})</h2>
          <ul className="list">
            {data.memories.map((m) => (
              <MemoryProposal key={m.id} memory={m} />
            ))}
          </ul>
        </section>
      ) : null}
      {data && data.skills.length > 0 ? (
        <section aria-labelledby="review-skills">
          <h2 id="review-skills">Skills ({data.counts.draftSkills})</h2>
          <ul className="list">
            {data.skills.map((s) => (
              <SkillDraft key={s.id} skill={s} />
            ))}
          </ul>
        </section>
      ) : null}
    </Page>
  );
}
