import type { PendingMemory } from '../../../../shared/contract';

/** "by <agent> · run <id> · <time>": where a proposal came from. */
export function ProvenanceLine({ provenance }: { provenance: PendingMemory['provenance'] }) {
  const when = new Date(provenance.proposedAt);
  return (
    <p className="review-provenance">
      by <strong>{provenance.agentName ?? 'unknown agent'}</strong>
      {provenance.runId ? (
        <>
          {' '}
          · run <code>{provenance.runId.slice(0, 8)}</code>
        </>
      ) : null}{' '}
      · <time dateTime={provenance.proposedAt}>{when.toLocaleString()}</time>
    </p>
  );
}
