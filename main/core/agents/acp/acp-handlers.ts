import type { OpParsedInput } from '../../../../shared/contract';
import type { AcpSessions } from './acp-sessions';

/**
 * The structured view and a turn's cancel, for every session (a kind without a view answers `structured: false`).
 * Typed by the contract alone, as agent-handlers.ts is; `ref` resolves a session reference (name or id).
 */
export function acpHandlers(acp: Pick<AcpSessions, 'transcript' | 'cancel'>, ref: (session: string) => { id: string }) {
  return {
    'sessions.transcript': (input: OpParsedInput<'sessions.transcript'>) =>
      acp.transcript(ref(input.session).id, input.last),
    'sessions.cancelTurn': (input: OpParsedInput<'sessions.cancelTurn'>) => acp.cancel(ref(input.session).id),
  };
}
