import { useState } from 'react';
import type { PendingMemory } from '../../../../shared/contract';
import { ProvenanceLine } from './Provenance';
import { useDecision } from './use-review-queue';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** A pending memory: approve, edit then approve, or reject. */
export function MemoryProposal({ memory }: { memory: PendingMemory }) {
  const approve = useDecision('review.approveMemory');
  const reject = useDecision('review.rejectMemory');
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(memory.content);
  const busy = approve.isPending || reject.isPending;
  const error = approve.error ?? reject.error;
  return (
    <li aria-label={`Memory: ${memory.content.slice(0, 60)}`} data-testid="memory-proposal">
      <div>
        <span className="chip">
          {memory.scope}
          {memory.project ? `: ${memory.projectName ?? memory.project}` : ''}
        </span>
      </div>
      {editing ? (
        <label>
          Edit memory
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={4} style={{ width: '100%' }} />
        </label>
      ) : (
        <p className="review-content">{memory.content}</p>
      )}
      <ProvenanceLine provenance={memory.provenance} />
      <ErrorBanner error={error} />
      <div className="review-actions" style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        {editing ? (
          <>
            <button
              className="primary"
              disabled={busy || !text.trim()}
              onClick={() => approve.mutate({ id: memory.id, content: text })}
            >
              Save and approve
            </button>
            <button disabled={busy} onClick={() => setEditing(false)}>
              Cancel
            </button>
          </>
        ) : (
          <>
            <button className="primary" disabled={busy} onClick={() => approve.mutate({ id: memory.id })}>
              Approve
            </button>
            <button disabled={busy} onClick={() => setEditing(true)}>
              Edit
            </button>
            <button disabled={busy} onClick={() => reject.mutate({ id: memory.id })}>
              Reject
            </button>
          </>
        )}
      </div>
    </li>
  );
}
