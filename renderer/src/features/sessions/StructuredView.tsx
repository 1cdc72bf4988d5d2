import { useLayoutEffect, useRef, useState } from 'react';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import type { Session } from '../../../../shared/contract/sessions';
import { opKey } from '../../api/query-keys';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { useAgentLabel } from './agent-label';
import { TranscriptItemCard } from './TranscriptItemCard';
import { atBottom, turnRuns } from './transcript-words';
import { useTranscript } from './use-transcript';
import './structured-view.css';

/**
 * A session's structured view (kinds with `capabilities.structured`): its messages, plan, tool calls and permission
 * asks as they happen, newest at the bottom. It follows new items while the operator is at the bottom and stays
 * where they scrolled up to read; "Stop turn" cancels the running turn (sessions.cancelTurn).
 */
export function StructuredView({
  session,
  requests,
}: {
  session: Session;
  /** The session's pending permission requests (permissions.list): a pending item is answered on its card. */
  requests: readonly PermissionRequest[];
}) {
  const transcript = useTranscript(session.id);
  const agentLabel = useAgentLabel()(session.agent);
  const items = transcript.data?.items ?? [];
  const box = useRef<HTMLOListElement>(null);
  const [following, setFollowing] = useState(true);
  const last = items.at(-1);
  const lastKey = last ? `${items.length}:${last.id}:${JSON.stringify(last).length}` : '';
  useLayoutEffect(() => {
    const el = box.current;
    if (el && following) el.scrollTop = el.scrollHeight;
  }, [lastKey, following]);
  const stop = useOperation('sessions.cancelTurn', [opKey('sessions.transcript', { session: session.id })]);
  const usage = transcript.data?.agentUsage;
  return (
    <section className="structured-view" aria-label="Structured view" data-testid="structured-view">
      <div className="structured-actions">
        {turnRuns(session) ? (
          <button
            type="button"
            className="danger"
            disabled={stop.isPending}
            onClick={() => stop.mutate({ session: session.id })}
          >
            Stop turn
          </button>
        ) : null}
        {stop.data ? (
          <span role="status" className="muted" data-testid="stop-result">
            {stop.data.cancelled ? 'Stopping the turn.' : 'No turn to stop.'} {stop.data.note}
          </span>
        ) : null}
        {usage ? (
          <span className="muted" data-testid="agent-usage">
            The agent reports {usage.inputTokens.toLocaleString()} tokens in, {usage.outputTokens.toLocaleString()} out
            {usage.contextUsed === null ? '' : `, ${usage.contextUsed.toLocaleString()} in context`}
          </span>
        ) : null}
      </div>
      <ErrorBanner error={stop.error ?? transcript.error} />
      {transcript.data && items.length === 0 ? (
        <p className="muted" data-testid="transcript-empty">
          Nothing yet: the agent’s messages, plan and tool calls appear here as it works.
        </p>
      ) : null}
      <ol
        className="transcript"
        ref={box}
        data-testid="transcript"
        aria-label="What the agent said and did"
        tabIndex={0}
        onScroll={(e) => setFollowing(atBottom(e.currentTarget))}
      >
        {items.map((item) => (
          <li key={item.id} className={`transcript-item item-${item.type}`}>
            <TranscriptItemCard item={item} agentLabel={agentLabel} requests={requests} />
          </li>
        ))}
      </ol>
      {following || items.length === 0 ? null : (
        <button type="button" className="transcript-latest" onClick={() => setFollowing(true)}>
          Jump to the latest
        </button>
      )}
    </section>
  );
}
