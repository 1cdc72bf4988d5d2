import { useState, type FormEvent } from 'react';
import type { AgentKind } from '../../../../shared/contract/agent-kind';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { AgentKindSelect } from '../sessions/AgentKindSelect';
import { boardKey } from './use-board';

/**
 * "Start a session on issue #N": the issue of the workspace's tracker is read, its title and body become the first
 * message, its number the branch's, and the session's task is linked to it (tracker.startSession).
 */
export function IssueStart() {
  const workspaces = useOpQuery('workspaces.list', {});
  const list = (workspaces.data?.workspaces ?? []).filter((w) => w.status === 'running');
  const [picked, setPicked] = useState('');
  const [issue, setIssue] = useState('');
  const [agent, setAgent] = useState<'' | AgentKind>('');
  const start = useOperation('tracker.startSession', [boardKey]);
  const workspace = list.find((w) => w.id === picked) ?? list[0];
  if (!workspace) return null;
  const number = issue.trim().replace(/^#/, '');
  const valid = /^[1-9][0-9]{0,8}$/.test(number);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate({ workspace: workspace.id, issue: Number(number), ...(agent ? { agent } : {}) });
  };
  return (
    <form className="issue-start row-actions" onSubmit={submit} aria-label="Start a session on an issue">
      <select aria-label="Workspace" value={workspace.id} onChange={(e) => setPicked(e.target.value)}>
        {list.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
      <input
        aria-label="Issue number"
        inputMode="numeric"
        placeholder="#42"
        value={issue}
        onChange={(e) => setIssue(e.target.value)}
      />
      <AgentKindSelect
        value={agent}
        onChange={setAgent}
        workspaceDefault={workspace.defaultAgent}
        label="Agent for the issue"
      />
      <button type="submit" className="primary" disabled={start.isPending || !valid}>
        {valid ? `Start a session on issue #${number}` : 'Start a session on an issue'}
      </button>
      {start.data ? (
        <span data-testid="issue-started">
          Started{' '}
          <a href={`#/sessions/${start.data.id}`}>
            {start.data.workspaceName} · {start.data.name}
          </a>
        </span>
      ) : null}
      <ErrorBanner error={start.error} />
    </form>
  );
}
