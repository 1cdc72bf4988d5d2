import { useOpQuery } from '../../api/use-op-query';
import { useAgentKinds } from './agent-label';

/**
 * A session's structured view (sessions.transcript), refetched on its `sessions.transcriptChanged` event
 * (api/live-updates.ts); the phone, which has no event stream, polls it with every other query.
 */
export function useTranscript(sessionId: string, enabled = true) {
  return useOpQuery('sessions.transcript', { session: sessionId }, { retry: false, enabled });
}

/**
 * Whether a session's kind has a structured view: its driver's `capabilities.structured` (agent.get). The phone may
 * not read agent.get, so there the session's own transcript says it (`structured`, answered for every session).
 */
export function useStructuredKind(session: { id: string; agent: string }): boolean {
  const known = useAgentKinds().find((k) => k.kind === session.agent)?.capabilities.structured;
  const transcript = useTranscript(session.id, known === undefined);
  return known ?? transcript.data?.structured ?? false;
}
