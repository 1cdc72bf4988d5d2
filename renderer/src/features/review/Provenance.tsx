import { actorLabel } from '../../../../shared/contract/platform';
import type { PendingMemory } from '../../../../shared/contract';

/** "by flow · beta · <time>": who proposed it, by workspace and session (a link to the session while it exists). */
export function ProvenanceLine({ provenance }: { provenance: PendingMemory['provenance'] }) {
  const when = new Date(provenance.proposedAt);
  const who = actorLabel(provenance);
  return (
    <p className="review-provenance">
      by{' '}
      {provenance.sessionId ? (
        <a href={`#/sessions/${provenance.sessionId}`}>
          <strong>{who}</strong>
        </a>
      ) : (
        <strong>{who}</strong>
      )}{' '}
      · <time dateTime={provenance.proposedAt}>{when.toLocaleString()}</time>
    </p>
  );
}
