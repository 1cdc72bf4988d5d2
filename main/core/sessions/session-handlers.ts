import type { Handlers } from '../handlers';
import { notYet } from '../not-yet';
import type { SessionService } from './session-service';

type SessionOps = 'sessions.list' | 'sessions.get' | 'sessions.create' | 'sessions.delete' | 'sessions.sendMessage' | 'sessions.pane';

/** The session operations, backed by the service; without one (no workspace service yet) they are refused. */
export function sessionHandlers(sessions?: SessionService | null): Pick<Handlers, SessionOps> {
  if (!sessions) {
    const later = notYet('Session control');
    return {
      'sessions.list': () => ({ sessions: [] }),
      'sessions.get': later,
      'sessions.create': later,
      'sessions.delete': later,
      'sessions.sendMessage': later,
      'sessions.pane': later,
    };
  }
  return {
    'sessions.list': async (input) => ({ sessions: await sessions.list(input.workspace) }),
    'sessions.get': (input) => sessions.get(input.session),
    'sessions.create': (input) => sessions.create(input),
    'sessions.delete': (input) => sessions.delete(input.session),
    'sessions.sendMessage': (input) => sessions.sendMessage(input.session, input.text),
    'sessions.pane': (input) => sessions.pane(input.session),
  };
}
