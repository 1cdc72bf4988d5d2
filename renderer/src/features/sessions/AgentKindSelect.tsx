import { AgentKind } from '../../../../shared/contract/agent-kind';
import { agentLabel } from './agent-label';

/**
 * Picks the agent CLI: Claude Code or Codex. With `workspaceDefault`, a first choice "Workspace default (…)"
 * (value '') leaves the pick to the workspace (sessions.create without `agent`).
 */
export function AgentKindSelect({
  value,
  onChange,
  workspaceDefault,
  name = 'agent',
  label,
}: {
  value: '' | AgentKind;
  onChange: (agent: '' | AgentKind) => void;
  /** The workspace's default kind, named in the "Workspace default" choice; absent: no such choice. */
  workspaceDefault?: AgentKind | null | undefined;
  name?: string;
  /** An accessible name when the select has no visible label around it. */
  label?: string;
}) {
  return (
    <select
      value={value}
      onChange={(e) => onChange(e.target.value as '' | AgentKind)}
      name={name}
      {...(label ? { 'aria-label': label } : {})}
    >
      {workspaceDefault !== undefined ? (
        <option value="">Workspace default{workspaceDefault ? ` (${agentLabel(workspaceDefault)})` : ''}</option>
      ) : null}
      {AgentKind.options.map((k) => (
        <option key={k} value={k}>
          {agentLabel(k)}
        </option>
      ))}
    </select>
  );
}
