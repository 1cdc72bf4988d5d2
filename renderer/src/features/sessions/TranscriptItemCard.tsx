import type { PermissionRequest } from '../../../../shared/contract/permissions';
import type { TranscriptItem } from '../../../../shared/contract/transcript';
import { PermissionRequestCard } from '../permissions/PermissionRequestCard';
import {
  permissionOutcomeTone,
  permissionOutcomeWords,
  planStatus,
  toolKind,
  toolStatusTone,
  toolStatusWords,
  turnEndWords,
} from './transcript-words';

type Item<T extends TranscriptItem['type']> = Extract<TranscriptItem, { type: T }>;

const time = (iso: string): string =>
  new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/**
 * One item of a session's structured view. A pending permission whose request is in the operator's list is that
 * request's own card (PermissionRequestCard: Allow once, Deny, Deny with a note, the grants), answered inline.
 */
export function TranscriptItemCard({
  item,
  agentLabel,
  requests,
}: {
  item: TranscriptItem;
  agentLabel: string;
  requests: readonly PermissionRequest[];
}) {
  switch (item.type) {
    case 'user':
      return <Message item={item} who="You" className="from-user" />;
    case 'agent':
      return <Message item={item} who={agentLabel} className="from-agent" />;
    case 'thought':
      return (
        <details className="transcript-thought" data-testid="transcript-thought">
          <summary>{agentLabel} thought</summary>
          <p className="transcript-text">{item.text}</p>
        </details>
      );
    case 'tool':
      return <ToolCallCard item={item} />;
    case 'plan':
      return <PlanChecklist item={item} />;
    case 'permission':
      return <PermissionItem item={item} request={requests.find((r) => r.id === item.requestId)} />;
    case 'turn_end':
      return (
        <p className="transcript-turn-end" data-testid="transcript-turn-end" data-stop-reason={item.stopReason}>
          <span>{turnEndWords(item.stopReason)}</span> <span className="muted">{time(item.at)}</span>
        </p>
      );
    case 'notice':
      return (
        <p className="banner warn transcript-notice" data-testid="transcript-notice">
          {item.text}
        </p>
      );
  }
}

function Message({ item, who, className }: { item: Item<'user' | 'agent'>; who: string; className: string }) {
  return (
    <article className={`transcript-message ${className}`} data-testid={`transcript-${item.type}`}>
      <header>
        <strong>{who}</strong> <span className="muted">{time(item.at)}</span>
      </header>
      <p className="transcript-text">{item.text}</p>
    </article>
  );
}

/** A tool call: what it is, its status in words, the files it touches, its output folded away. */
function ToolCallCard({ item }: { item: Item<'tool'> }) {
  const kind = toolKind(item.kind);
  // A call announced before its title arrives is named by its kind meanwhile.
  const title = item.title || kind.label;
  const input = item.input === undefined || item.input === null ? '' : JSON.stringify(item.input, null, 2);
  return (
    <article
      className={`transcript-tool status-${item.status}`}
      aria-label={`Tool call: ${title}`}
      data-testid="transcript-tool"
      data-status={item.status}
    >
      <header>
        <span className="transcript-tool-kind">
          <span aria-hidden="true">{kind.glyph}</span> {kind.label}
        </span>
        <strong className="transcript-tool-title">{title}</strong>
        <span className={`chip ${toolStatusTone[item.status]}`} data-testid="tool-status">
          {toolStatusWords[item.status]}
        </span>
      </header>
      {item.locations.length > 0 ? (
        <ul className="transcript-files" aria-label="Files">
          {item.locations.map((path, i) => (
            <li key={`${i}:${path}`}>
              <code>{path}</code>
            </li>
          ))}
        </ul>
      ) : null}
      {input && input !== '{}' ? (
        <details>
          <summary>Input</summary>
          <pre className="command">{input}</pre>
        </details>
      ) : null}
      {item.output ? (
        <details>
          <summary>Output ({lineCount(item.output)})</summary>
          <pre className="command transcript-output" data-testid="tool-output">
            {item.output}
          </pre>
        </details>
      ) : null}
    </article>
  );
}

const lineCount = (text: string): string => {
  const n = text.replace(/\n$/, '').split('\n').length;
  return `${n} line${n === 1 ? '' : 's'}`;
};

/** The agent's plan as it last stated it: a checklist, each entry's status said in words beside its mark. */
function PlanChecklist({ item }: { item: Item<'plan'> }) {
  const done = item.entries.filter((e) => e.status === 'completed').length;
  return (
    <section className="transcript-plan" aria-label="Plan" data-testid="transcript-plan">
      <header>
        <strong>Plan</strong>{' '}
        <span className="muted">
          {done} of {item.entries.length} done
        </span>
      </header>
      <ol>
        {item.entries.map((e, i) => {
          const s = planStatus(e.status);
          return (
            <li key={i} data-status={e.status} data-testid="plan-entry">
              <span className={s.tone} aria-hidden="true">
                {s.mark}
              </span>{' '}
              <span className={e.status === 'completed' ? 'plan-done' : undefined}>{e.content}</span>{' '}
              <span className={`plan-status ${s.tone}`}>
                ({s.words}
                {e.priority === 'high' ? ', high priority' : ''})
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** A permission the agent asked for: the live request's card while it waits, else how it was answered. */
function PermissionItem({ item, request }: { item: Item<'permission'>; request: PermissionRequest | undefined }) {
  return (
    <section
      className="transcript-permission"
      aria-label={`Permission: ${item.title}`}
      data-testid="transcript-permission"
      data-outcome={item.outcome}
    >
      <header>
        <span aria-hidden="true">⚑</span> <strong>{item.title}</strong>{' '}
        <span className={`chip ${permissionOutcomeTone[item.outcome]}`} data-testid="permission-outcome">
          {permissionOutcomeWords[item.outcome]}
        </span>
      </header>
      {item.outcome === 'pending' && request ? <PermissionRequestCard request={request} /> : null}
      {item.outcome === 'pending' && !request ? <p className="muted">Reading the request…</p> : null}
    </section>
  );
}
