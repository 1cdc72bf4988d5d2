import type { Handlers } from '../handlers';
import type { ConnectorService } from './connector-service';
import type { Db } from '../store';
import type { TokenService } from '../tokens';
import { listActivity, type AuditLog } from '../audit';

/** `activity.list`: the audit with each token's and connector's name beside its id. */
export function activityHandler(deps: {
  db: Db;
  audit: AuditLog;
  tokens: TokenService;
  remote: ConnectorService;
}): Pick<Handlers, 'activity.list'> {
  return {
    'activity.list': (input) => {
      const tokens = new Map(deps.tokens.list().map((t) => [t.id, t.name]));
      const grants = new Map(deps.remote.listGrants().map((g) => [g.id, g.clientName]));
      const names = (kind: 'token' | 'connector', id: string): string | null =>
        (kind === 'connector' ? grants.get(id) : tokens.get(id)) ?? null;
      return listActivity(deps.audit, input, names);
    },
  };
}
