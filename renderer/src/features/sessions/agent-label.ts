import type { AgentKindInfo } from '../../../../shared/contract/agent-kind';
import { useOpQuery } from '../../api/use-op-query';

/** The agent kinds this Nexus runs (from `agent.get`, kept live by `agent.changed`), in the registry's order. */
export function useAgentKinds(): readonly AgentKindInfo[] {
  return useOpQuery('agent.get', {}).data?.kinds ?? [];
}

/** A kind as the operator reads it: its label from the registry (the id itself until the list has loaded). */
export const agentLabel = (kinds: readonly AgentKindInfo[], kind: string): string =>
  kinds.find((k) => k.kind === kind)?.label ?? kind;

/** The label of a kind, read from the registry: `useAgentLabel()(session.agent)`. */
export function useAgentLabel(): (kind: string) => string {
  const kinds = useAgentKinds();
  return (kind) => agentLabel(kinds, kind);
}
