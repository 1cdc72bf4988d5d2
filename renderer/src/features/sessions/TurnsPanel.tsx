import { useState } from 'react';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { RowConfirm } from '../../shell/RowConfirm';
import { ChangesDiff } from './ChangesDiff';
import { PreviewBeforeAfter } from './PreviewsPanel';

/**
 * The session's turns: a checkpoint of the whole worktree at each turn end, with what it changed. "Restore to
 * this turn" checkpoints the current state first (nothing is lost), writes the files back and tells the agent.
 */
export function TurnsPanel({ sessionId }: { sessionId: string }) {
  const list = useOpQuery('checkpoints.list', { session: sessionId }, { retry: false });
  const [open, setOpen] = useState<number | null>(null);
  const [asking, setAsking] = useState<number | null>(null);
  const restore = useOperation(
    'checkpoints.restore',
    [opKey('checkpoints.list', { session: sessionId }), opKey('sessions.diff', { session: sessionId })],
    () => setAsking(null),
  );
  const checkpoints = list.data?.checkpoints ?? [];
  return (
    <section className="turns" aria-label="Turns" data-testid="session-turns">
      <h3>Turns</h3>
      <PreviewBeforeAfter sessionId={sessionId} />
      {list.error ? <p className="muted">{list.error.message}</p> : null}
      {checkpoints.length === 0 && !list.error ? (
        <p className="muted">No turn has ended yet; each turn end checkpoints the worktree.</p>
      ) : null}
      <ul className="turn-list">
        {[...checkpoints].reverse().map((c) => (
          <li key={c.seq} data-testid="turn" data-seq={c.seq}>
            <button type="button" className="link" onClick={() => setOpen(open === c.seq ? null : c.seq)}>
              {c.turn ? `Turn ${c.turn}` : `Before restoring checkpoint ${c.restoredTo}`}
            </button>{' '}
            <span className="muted">
              {c.files} file{c.files === 1 ? '' : 's'} <span className="count add">+{c.additions}</span>{' '}
              <span className="count del">−{c.deletions}</span> · {new Date(c.at).toLocaleTimeString()}
            </span>{' '}
            <RowConfirm
              open={asking === c.seq}
              setOpen={(o) => setAsking(o ? c.seq : null)}
              action={c.turn ? 'Restore to this turn' : 'Restore this state'}
              question="The current files are checkpointed first, then replaced, and the agent is told."
              confirmLabel="Restore"
              busy={restore.isPending}
              onConfirm={() => restore.mutate({ session: sessionId, seq: c.seq })}
            />
            {open === c.seq ? <TurnDiff sessionId={sessionId} seq={c.seq} /> : null}
          </li>
        ))}
      </ul>
      {restore.data ? (
        <p role="status" data-testid="restore-result">
          {restore.data.note}
        </p>
      ) : null}
      <ErrorBanner error={restore.error} />
    </section>
  );
}

function TurnDiff({ sessionId, seq }: { sessionId: string; seq: number }) {
  const diff = useOpQuery('checkpoints.diff', { session: sessionId, seq }, { retry: false });
  if (diff.error) return <p className="muted">{diff.error.message}</p>;
  if (!diff.data) return <p className="muted">Reading the turn’s diff…</p>;
  return (
    <div data-testid="turn-diff">
      {diff.data.note ? <p className="muted">{diff.data.note}</p> : null}
      {diff.data.patches.length > 0 ? (
        <ChangesDiff patches={diff.data.patches} />
      ) : (
        <p className="muted">No changes.</p>
      )}
    </div>
  );
}
