import { useOpQuery } from '../../api/use-op-query';

/**
 * A session's structured view (sessions.transcript), refetched on its `sessions.transcriptChanged` event
 * (api/live-updates.ts); the phone, which has no event stream, polls it with every other query.
 */
export function useTranscript(sessionId: string, enabled = true) {
  return useOpQuery('sessions.transcript', { session: sessionId }, { retry: false, enabled });
}

/**
 * Whether a session's kind has a structured view: its driver's `capabilities.structured` (agent.get). The phone may
 * not read agent.get, so there (or for a kind the list lacks) the session's own transcript says it (`structured`,
 * answered for every session).
 */
export function useStructuredKind(session: { id: string; agent: string }): boolean {
  const kinds = useOpQuery('agent.get', {});
  const known = kinds.data?.kinds.find((k) => k.kind === session.agent)?.capabilities.structured;
  // Once agent.get has answered or failed (isFetched holds through the phone's refetches of a refused call).
  const ask = known === undefined && kinds.isFetched;
  const transcript = useTranscript(session.id, ask);
  return known ?? (ask && transcript.data?.structured === true);
}
