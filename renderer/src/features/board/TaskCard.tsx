import { actorLabel, sessionNameForTask, type Actor, type BoardTask } from '../../../../shared/contract/platform';
import { useState } from 'react';
import type { AgentKind } from '../../../../shared/contract/agent-kind';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { AgentKindSelect } from '../sessions/AgentKindSelect';
import { MirrorBadge, TaskIssue } from './TaskIssue';
import { boardKey } from './use-board';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** "flow · beta", a link to the session while it exists. */
function Who({ actor }: { actor: Actor }) {
  const label = actorLabel(actor);
  return actor.sessionId ? <a href={`#/sessions/${actor.sessionId}`}>{label}</a> : <span>{label}</span>;
}

/** One task card: title, where it belongs, who made it, the sessions on it, the agents' comments, its actions. */
export function TaskCard({ task }: { task: BoardTask }) {
  const start = useOperation('sessions.create', [boardKey]);
  const move = useOperation('tasks.setStatus', [boardKey]);
  const open = task.status !== 'done' && task.status !== 'cancelled';
  const startable = task.workspaceId !== null && (task.status === 'ready_for_agent' || task.status === 'planned');
  const error = start.error ?? move.error;
  // '' = the workspace's default (sessions.create without `agent`), named in the first choice.
  const [agent, setAgent] = useState<'' | AgentKind>('');
  const workspaces = useOpQuery('workspaces.list', {}, { enabled: startable });
  const workspaceDefault = workspaces.data?.workspaces.find((w) => w.id === task.workspaceId)?.defaultAgent ?? null;
  return (
    <li aria-label={`Task: ${task.title}`} data-testid="task-card">
      <strong>{task.title}</strong> {task.roleHint ? <span className="chip">for {task.roleHint}</span> : null}
      <p className="muted">
        {task.workspaceName ?? 'no workspace'}
        {task.createdBy ? (
          <>
            {' '}
            · from <Who actor={task.createdBy} />
          </>
        ) : null}
      </p>
      {task.body && task.body !== task.title ? <p className="review-content">{task.body}</p> : null}
      <TaskIssue task={task} />
      {task.sessions.length > 0 ? (
        <p>
          Sessions:{' '}
          {task.sessions.map((s, i) => (
            <span key={s.id}>
              {i > 0 ? ', ' : ''}
              <a href={`#/sessions/${s.id}`}>
                {s.workspaceName} · {s.name}
              </a>
            </span>
          ))}
        </p>
      ) : null}
      {task.comments.length > 0 ? (
        <ul className="task-comments" aria-label="Comments">
          {task.comments.map((c) => (
            <li key={c.id}>
              <Who actor={c.by} />: {c.body}{' '}
              <time className="muted" dateTime={c.createdAt}>
                {new Date(c.createdAt).toLocaleTimeString()}
              </time>
              {c.mirror && task.issue ? <MirrorBadge state={c.mirror} issueRef={task.issue.ref} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorBanner error={error} />
      <div className="row-actions">
        {startable ? (
          <>
            <AgentKindSelect
              value={agent}
              onChange={setAgent}
              workspaceDefault={workspaceDefault}
              label={`Agent for ${task.title}`}
            />
            <button
              className="primary"
              disabled={start.isPending}
              onClick={() =>
                start.mutate({
                  workspace: task.workspaceId ?? '',
                  name: sessionNameForTask(task),
                  taskId: task.id,
                  initialMessage: task.body ? `${task.title}\n\n${task.body}` : task.title,
                  ...(agent ? { agent } : {}),
                })
              }
            >
              Start a session on it
            </button>
          </>
        ) : null}
        {open ? (
          <>
            <button disabled={move.isPending} onClick={() => move.mutate({ id: task.id, status: 'done' })}>
              Mark done
            </button>
            <button disabled={move.isPending} onClick={() => move.mutate({ id: task.id, status: 'cancelled' })}>
              Cancel
            </button>
          </>
        ) : null}
      </div>
    </li>
  );
}
