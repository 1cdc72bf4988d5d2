import type { AgentKind } from '../../../../shared/contract/agent-kind';
import { agentLabel, useAgentKinds } from './agent-label';

/**
 * Picks the agent kind, from the kinds this Nexus runs (agent.get). With `workspaceDefault`, a first choice "Workspace default (…)"
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
  const kinds = useAgentKinds();
  return (
    <select
      value={value}
      onChange={(e) => onChange(e.target.value as '' | AgentKind)}
      name={name}
      {...(label ? { 'aria-label': label } : {})}
    >
      {workspaceDefault !== undefined ? (
        <option value="">Workspace default{workspaceDefault ? ` (${agentLabel(kinds, workspaceDefault)})` : ''}</option>
      ) : null}
      {kinds.map((k) => (
        <option key={k.kind} value={k.kind}>
          {k.label}
        </option>
      ))}
    </select>
  );
}
