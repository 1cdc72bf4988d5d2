import type { OpParsedInput } from '../../../shared/contract';
import { dayOf } from './usage-store';
import type { ModelGateway } from './gateway';

/** What the handlers need besides the gateway: session and workspace references resolved to ids. */
export interface UsageRefs {
  session(ref: string): { id: string; workspaceId: string };
  workspace(ref: string): { id: string };
}

/** usage.* operations. Typed by the contract alone; the composition root's mergeHandlers checks them. */
export function gatewayHandlers(gateway: ModelGateway, refs: UsageRefs) {
  const report = (scope: OpParsedInput<'usage.get'>) => {
    const { usage } = gateway;
    if (scope.session) {
      const s = refs.session(scope.session);
      return {
        totals: usage.session(s.id),
        budgets: gateway
          .budgetsOf({ sessionId: s.id, workspaceId: s.workspaceId })
          .map((b) => ({ scope: b.scope, maxTokens: b.max, used: b.used.total })),
      };
    }
    if (scope.workspace) {
      const w = refs.workspace(scope.workspace);
      const max = usage.store.budget('workspace', w.id);
      const totals = usage.workspace(w.id);
      return {
        totals,
        budgets: max === null ? [] : [{ scope: 'workspace' as const, maxTokens: max, used: totals.total }],
      };
    }
    const totals = usage.day(dayOf(new Date()));
    const max = usage.store.budget('day', '');
    return { totals, budgets: max === null ? [] : [{ scope: 'day' as const, maxTokens: max, used: totals.total }] };
  };
  return {
    'usage.get': (input: OpParsedInput<'usage.get'>) => report(input),
    'usage.setBudget': (input: OpParsedInput<'usage.setBudget'>) => {
      const s = input.scope;
      if ('session' in s) {
        const session = refs.session(s.session);
        gateway.setBudget('session', session.id, input.maxTokens);
        return report({ session: session.id });
      }
      if ('workspace' in s) {
        const w = refs.workspace(s.workspace);
        gateway.setBudget('workspace', w.id, input.maxTokens);
        return report({ workspace: w.id });
      }
      gateway.setBudget('day', '', input.maxTokens);
      return report({});
    },
  };
}
