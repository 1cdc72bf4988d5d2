import type { Session } from '../../shared/contract/sessions';

/**
 * A session as the contract hands it to the UI (running, on `nexus/<name>`, no task, no message),
 * with what a test cares about given: `contractSession({ id: 'a', name: 'a', workspaceName: 'demo' })`.
 */
export function contractSession(
  fields: Pick<Session, 'id' | 'name' | 'workspaceId' | 'workspaceName'> & Partial<Session>,
): Session {
  return {
    branch: `nexus/${fields.name}`,
    agent: 'claude',
    status: 'running',
    reason: null,
    taskId: null,
    toolsReason: null,
    agentState: 'idle',
    agentStateAt: null,
    agentMessage: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}
