import { useState, type FormEvent, type ReactNode } from 'react';
import type { AttemptGroup } from '../../../../shared/contract/attempts';
import type { AgentKind } from '../../../../shared/contract/agent-kind';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { RowConfirm } from '../../shell/RowConfirm';
import { AgentKindSelect } from './AgentKindSelect';
import { AttemptCost, AttemptRun, AttemptScreenshot } from './AttemptFacts';
import { agentLabel, useAgentKinds } from './agent-label';
import { MessageText } from './MessageText';
import { useSessions } from './use-sessions';

const groupsKey = opKey('attempts.list');

/** "Try it N ways": one prompt, 2–10 sessions (any mix of agent kinds), started as a group. */
export function TryItForm({ knownWorkspaces }: { knownWorkspaces: string[] }) {
  const listed = useOpQuery('workspaces.list', {});
  const workspaces = [...new Set([...(listed.data?.workspaces.map((w) => w.name) ?? []), ...knownWorkspaces])].sort();
  const [workspace, setWorkspace] = useState('');
  const [name, setName] = useState('');
  const [prompt, setPrompt] = useState('');
  // Two attempts of this Nexus's default kind (the registry's first) until the operator picks.
  const first = useAgentKinds()[0]?.kind ?? '';
  const [picked, setAgents] = useState<AgentKind[] | null>(null);
  const agents = picked ?? [first, first];
  const start = useOperation('attempts.start', [groupsKey], () => {
    setName('');
    setPrompt('');
  });
  const chosen = workspace || workspaces[0] || '';
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    start.mutate({ workspace: chosen, name, prompt, agents });
  };
  return (
    <form className="session-create" onSubmit={submit} aria-label="Try it N ways">
      <label>
        Workspace{' '}
        <select name="workspace" value={chosen} onChange={(e) => setWorkspace(e.target.value)}>
          {workspaces.map((w) => (
            <option key={w}>{w}</option>
          ))}
        </select>
      </label>
      <label>
        Group name <input name="group" value={name} onChange={(e) => setName(e.target.value)} placeholder="try-login" />
      </label>
      <fieldset>
        <legend>Attempts ({agents.length})</legend>
        {agents.map((a, i) => (
          <AgentKindSelect
            key={i}
            name={`agent-${i + 1}`}
            label={`Agent of attempt ${i + 1}`}
            value={a}
            onChange={(k) => setAgents(agents.map((x, j) => (j === i ? (k as AgentKind) : x)))}
          />
        ))}
        <button
          type="button"
          disabled={agents.length >= 10}
          onClick={() => setAgents([...agents, agents.at(-1) ?? first])}
        >
          Add an attempt
        </button>
        <button type="button" disabled={agents.length <= 2} onClick={() => setAgents(agents.slice(0, -1))}>
          Remove one
        </button>
      </fieldset>
      <label>
        Prompt{' '}
        <MessageText
          value={prompt}
          onValue={setPrompt}
          name="prompt"
          rows={3}
          placeholder="The prompt every attempt starts with"
        />
      </label>
      <button type="submit" disabled={!chosen || !name || !prompt || start.isPending}>
        Start {agents.length} attempts
      </button>
      <ErrorBanner error={start.error} />
    </form>
  );
}

/**
 * Each group's attempts side by side: agent, state, diff stat, turns, the run command's result, cost and the latest
 * screenshot; "Keep this one" deletes the others.
 */
export function AttemptsCompare() {
  const list = useOpQuery('attempts.list', {}, { retry: false });
  const groups = list.data?.groups ?? [];
  if (groups.length === 0) return null;
  return (
    <section className="attempts" aria-label="Attempts" data-testid="attempts">
      <h3>Attempts</h3>
      {groups.map((g) => (
        <AttemptGroupView key={g.id} group={g} />
      ))}
      <ErrorBanner error={list.error} />
    </section>
  );
}

function AttemptGroupView({ group }: { group: AttemptGroup }) {
  const kinds = useAgentKinds();
  // The state is the live session list's (pushed); the group's own answer may be older.
  const live = new Map((useSessions().data?.sessions ?? []).map((s) => [s.id, s]));
  const [asking, setAsking] = useState<string | null>(null);
  const keep = useOperation('attempts.keep', [groupsKey, opKey('sessions.list')], () => setAsking(null));
  const others = group.attempts.filter((a) => a.session).length - 1;
  return (
    <details open={!group.keptSessionId} data-testid="attempt-group" data-group={group.name}>
      <summary>
        {group.name}: “{group.prompt.slice(0, 80)}”{' '}
        <span className="muted">
          {group.keptSessionId
            ? `kept ${group.attempts.find((a) => a.sessionId === group.keptSessionId)?.name ?? ''}`
            : `${group.attempts.length} attempts`}
        </span>
      </summary>
      <table className="attempts-compare">
        <thead>
          <tr>
            <th scope="row">Attempt</th>
            {group.attempts.map((a) => (
              <th key={a.sessionId} scope="col">
                {a.session ? <a href={`#/sessions/${a.sessionId}`}>{a.name}</a> : a.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Agent</th>
            {group.attempts.map((a) => (
              <td key={a.sessionId}>{agentLabel(kinds, a.agent)}</td>
            ))}
          </tr>
          <tr>
            <th scope="row">State</th>
            {group.attempts.map((a) => {
              const s = live.get(a.sessionId) ?? a.session;
              return <td key={a.sessionId}>{s ? `${s.status}, ${s.agentState}` : (a.note ?? 'gone')}</td>;
            })}
          </tr>
          <tr>
            <th scope="row">Changes</th>
            {group.attempts.map((a) => (
              <td key={a.sessionId} data-testid="attempt-changes">
                {a.changes ? (
                  <>
                    {a.changes.changedFiles} file{a.changes.changedFiles === 1 ? '' : 's'}{' '}
                    <span className="count add">+{a.changes.additions}</span>{' '}
                    <span className="count del">−{a.changes.deletions}</span>
                  </>
                ) : (
                  <span className="muted">{a.session ? (a.note ?? '…') : ''}</span>
                )}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">Turns</th>
            {group.attempts.map((a) => (
              <td key={a.sessionId}>{a.turns}</td>
            ))}
          </tr>
          <FactRow name="Run" group={group} fact={(id) => <AttemptRun sessionId={id} />} />
          <FactRow name="Cost" group={group} fact={(id) => <AttemptCost sessionId={id} />} />
          <FactRow name="Screenshot" group={group} fact={(id) => <AttemptScreenshot sessionId={id} />} />
          {group.keptSessionId ? null : (
            <tr>
              <th scope="row">Decide</th>
              {group.attempts.map((a) => (
                <td key={a.sessionId}>
                  <RowConfirm
                    open={asking === a.sessionId}
                    setOpen={(o) => setAsking(o ? a.sessionId : null)}
                    action="Keep this one"
                    question={`The other ${others} session${others === 1 ? ' is' : 's are'} deleted; their branches are kept for a week.`}
                    confirmLabel="Keep it, delete the others"
                    busy={keep.isPending}
                    onConfirm={() => keep.mutate({ group: group.id, session: a.sessionId })}
                  />
                </td>
              ))}
            </tr>
          )}
        </tbody>
      </table>
      <ErrorBanner error={keep.error} />
    </details>
  );
}

/** One row of the compare: a fact of each attempt whose session is still there (a deleted one has none to read). */
function FactRow({ name, group, fact }: { name: string; group: AttemptGroup; fact: (sessionId: string) => ReactNode }) {
  return (
    <tr data-testid={`attempt-row-${name.toLowerCase()}`}>
      <th scope="row">{name}</th>
      {group.attempts.map((a) => (
        <td key={a.sessionId}>{a.session ? fact(a.sessionId) : null}</td>
      ))}
    </tr>
  );
}
