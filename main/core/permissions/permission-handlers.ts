import { actorOf, type Handlers } from '../handlers';
import type { PermissionRequests } from './permission-requests';

/** The permissions.* operations: the agents' pending permission requests, and the operator's answer. */
export function permissionHandlers(
  permissions: PermissionRequests,
): Pick<Handlers, 'permissions.list' | 'permissions.decide'> {
  return {
    'permissions.list': (input) => ({ requests: permissions.list(input.sessionId) }),
    'permissions.decide': ({ id, behavior, note }, ctx) => ({
      request: permissions.decide(
        id,
        behavior === 'allow' ? { behavior } : { behavior, ...(note ? { message: note } : {}) },
        actorOf(ctx.caller),
        ctx.transport,
      ),
    }),
  };
}
