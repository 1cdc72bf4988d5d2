import type { Handlers } from '../handlers';
import { notYet } from '../not-yet';

type SessionOps = 'sessions.list' | 'sessions.get' | 'sessions.create' | 'sessions.delete' | 'sessions.sendMessage' | 'sessions.pane';

/** Placeholder until the sessions service lands: the list is empty, changes are refused. */
export function sessionHandlers(): Pick<Handlers, SessionOps> {
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
