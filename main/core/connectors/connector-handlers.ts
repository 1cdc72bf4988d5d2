import type { Handlers } from '../handlers';
import type { ConnectorService } from './connector-service';

type RemoteOps =
  | 'remote.status'
  | 'remote.setOrigin'
  | 'remote.pending'
  | 'remote.approve'
  | 'remote.deny'
  | 'remote.grants'
  | 'remote.revoke'
  | 'remote.createClient'
  | 'remote.clients'
  | 'remote.revokeClient';

export function connectorHandlers(remote: ConnectorService): Pick<Handlers, RemoteOps> {
  return {
    'remote.status': () => remote.status(),
    'remote.setOrigin': (input) => remote.setOrigin(input.publicOrigin),
    'remote.pending': () => ({ pending: remote.pending() }),
    'remote.approve': (input) => remote.approve(input.id, input.class),
    'remote.deny': (input) => remote.deny(input.id),
    'remote.grants': () => ({ grants: remote.listGrants() }),
    'remote.revoke': (input) => remote.revoke(input.id),
    'remote.createClient': () => remote.createClient(),
    'remote.clients': () => ({ clients: remote.listClients() }),
    'remote.revokeClient': (input) => remote.revokeClient(input.clientId),
  };
}
