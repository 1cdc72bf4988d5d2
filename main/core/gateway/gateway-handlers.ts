import type { OpParsedInput } from '../../../shared/contract';
import { dayOf } from './usage-store';
import type { ModelGateway } from './gateway';
import { named, usageCsv, type UsageNames } from './usage-csv';
import { estimateOf } from './usage-prices';

/** What the handlers need besides the gateway: session and workspace references resolved to ids. */
export interface UsageRefs {
  session(ref: string): { id: string; workspaceId: string };
  workspace(ref: string): { id: string };
  /** The export's names: the workspaces', sessions' and platform's stores (the gateway reads none of their tables). */
  names: UsageNames;
}

/** usage.* operations. Typed by the contract alone; the composition root's mergeHandlers checks them. */
export function gatewayHandlers(gateway: ModelGateway, refs: UsageRefs) {
  const { usage } = gateway;
  const prices = usage.prices;
  const estimate = (scope: Parameters<typeof usage.models>[0]) => estimateOf(usage.models(scope), prices.table());
  const report = (scope: OpParsedInput<'usage.get'>) => {
    if (scope.session) {
      const s = refs.session(scope.session);
      return {
        totals: usage.session(s.id),
        estimate: estimate({ sessionId: s.id }),
        budgets: gateway
          .budgetsOf({ sessionId: s.id, workspaceId: s.workspaceId })
          .map((b) => ({ scope: b.scope, maxTokens: b.max, used: b.used.total })),
      };
    }
    if (scope.workspace) {
      const w = refs.workspace(scope.workspace);
      const max = usage.budget('workspace', w.id);
      const totals = usage.workspace(w.id);
      return {
        totals,
        estimate: estimate({ workspaceId: w.id }),
        budgets: max === null ? [] : [{ scope: 'workspace' as const, maxTokens: max, used: totals.total }],
      };
    }
    const day = dayOf(new Date());
    const totals = usage.day(day);
    const max = usage.budget('day', '');
    return {
      totals,
      estimate: estimate({ day }),
      budgets: max === null ? [] : [{ scope: 'day' as const, maxTokens: max, used: totals.total }],
    };
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
    'usage.sessions': () => {
      const table = prices.table();
      const bySession = new Map<string, ReturnType<typeof usage.bySessionModel>>();
      for (const row of usage.bySessionModel())
        bySession.set(row.sessionId, [...(bySession.get(row.sessionId) ?? []), row]);
      return {
        sessions: [...bySession].map(([sessionId, models]) => {
          const sum = (k: 'requests' | 'input' | 'output' | 'cacheWrite' | 'cacheRead') =>
            models.reduce((n, m) => n + m[k], 0);
          const totals = {
            requests: sum('requests'),
            input: sum('input'),
            output: sum('output'),
            cacheWrite: sum('cacheWrite'),
            cacheRead: sum('cacheRead'),
            total: sum('input') + sum('output') + sum('cacheWrite') + sum('cacheRead'),
          };
          return { sessionId, totals, estimate: estimateOf(models, table) };
        }),
      };
    },
    'usage.prices': () => ({ prices: prices.table() }),
    'usage.setPrice': (input: OpParsedInput<'usage.setPrice'>) => {
      prices.set(input.model, input.price);
      return { prices: prices.table() };
    },
    'usage.export': () => {
      const { csv, rows } = usageCsv(named(usage.bySessionDay(), refs.names), prices.table());
      return { csv, rows, filename: `nexus-usage-${dayOf(new Date())}.csv` };
    },
  };
}
