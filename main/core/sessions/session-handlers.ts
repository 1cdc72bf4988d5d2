import type { Handlers } from '../handlers';
import type { SessionService } from './session-service';

type SessionOps =
  | 'sessions.list'
  | 'sessions.get'
  | 'sessions.create'
  | 'sessions.delete'
  | 'sessions.sendMessage'
  | 'sessions.pane'
  | 'sessions.defaultAgent'
  | 'sessions.setDefaultAgent';

/** The sessions.* operations, each a thin call into the session service. */
export function sessionHandlers(sessions: SessionService): Pick<Handlers, SessionOps> {
  return {
    'sessions.list': async (input) => ({ sessions: await sessions.list(input.workspace) }),
    'sessions.get': (input) => sessions.get(input.session),
    'sessions.create': (input, ctx) => sessions.create({ ...input, workspace: ctx.workspace ?? input.workspace }),
    'sessions.delete': ({ session, ...opts }) => sessions.delete(session, opts),
    'sessions.sendMessage': (input) => sessions.sendMessage(input.session, input.text),
    'sessions.pane': (input) => sessions.pane(input.session),
    'sessions.defaultAgent': (input) => Promise.resolve(sessions.defaultAgent(input.workspace)),
    'sessions.setDefaultAgent': (input) => Promise.resolve(sessions.setDefaultAgent(input.workspace, input.agent)),
  };
}
