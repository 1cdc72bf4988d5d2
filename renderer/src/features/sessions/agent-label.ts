import type { AgentKind } from '../../../../shared/contract/sessions';

/** The agent kind as the operator reads it. */
export const agentLabel = (agent: AgentKind): string => (agent === 'codex' ? 'Codex' : 'Claude Code');
