import { actorOf, type Handlers } from '../../handlers';
import type { PermissionRequests } from '../permission-requests';
import type { RulesService } from './rules-service';

/** The rules.* operations: the approval rules, grants from a pending request, a session's automatic decisions. */
export function ruleHandlers(
  rules: RulesService,
  permissions: Pick<PermissionRequests, 'askedOf' | 'decide'>,
): Pick<Handlers, 'rules.list' | 'rules.set' | 'rules.remove' | 'rules.draft' | 'rules.grant' | 'rules.decisions'> {
  return {
    'rules.list': (input) => ({ rules: rules.list(input) }),
    'rules.set': (input, ctx) => ({ rule: rules.set(input, actorOf(ctx.caller)) }),
    'rules.remove': ({ id }) => ({ removed: rules.remove(id) }),
    'rules.draft': ({ requestId }) => rules.draft(permissions.askedOf(requestId)),
    'rules.grant': ({ requestId, grant }, ctx) => {
      const actor = actorOf(ctx.caller);
      // The rule first: a request that cannot have one is refused before it is allowed.
      const rule = rules.grant(permissions.askedOf(requestId), grant, actor);
      permissions.decide(requestId, { behavior: 'allow' }, actor, ctx.transport);
      return { rule };
    },
    'rules.decisions': ({ sessionId }) => rules.decisions(sessionId),
  };
}
