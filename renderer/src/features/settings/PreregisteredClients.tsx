import { useState } from 'react';
import type { OpOutput, RemoteClient } from '../../../../shared/contract';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { RowConfirm } from '../../shell/RowConfirm';

const refresh = [opKey('remote.clients'), opKey('remote.grants')] as const;

/**
 * Pre-registered clients, for Claude's "advanced settings" (client id and secret) instead of letting
 * Claude register itself. The secret is shown once, here; Nexus keeps only its hash. Each
 * authorization still waits for your approval under Connectors waiting.
 */
export function PreregisteredClients() {
  const clients = useOpQuery('remote.clients', {});
  const [shown, setShown] = useState<OpOutput<'remote.createClient'> | null>(null);
  const create = useOperation('remote.createClient', refresh, setShown);
  const list = clients.data?.clients ?? [];
  return (
    <>
      <h3>Client id and secret (advanced)</h3>
      <p className="muted">
        Only if you fill Claude&apos;s advanced settings: leave them empty and Claude registers itself.
      </p>
      <ErrorBanner error={clients.error ?? create.error} />
      {shown ? (
        <div className="banner warn" role="status" data-testid="client-once">
          <p>Copy the secret now: it is shown this once.</p>
          <p>
            Client id <code data-testid="client-id">{shown.clientId}</code>{' '}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(shown.clientId)}>
              Copy id
            </button>
          </p>
          <p>
            Client secret{' '}
            <code className="token-secret" data-testid="client-secret">
              {shown.clientSecret}
            </code>{' '}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(shown.clientSecret)}>
              Copy secret
            </button>
          </p>
          <button type="button" onClick={() => setShown(null)}>
            Done
          </button>
        </div>
      ) : null}
      <ul className="list" aria-label="Pre-registered clients">
        {list.map((c) => (
          <ClientItem key={c.clientId} client={c} />
        ))}
      </ul>
      <div className="form-actions">
        <button type="button" disabled={create.isPending} onClick={() => create.mutate({})}>
          {create.isPending ? 'Creating…' : 'Create client id and secret'}
        </button>
      </div>
    </>
  );
}

function ClientItem({ client }: { client: RemoteClient }) {
  const [confirm, setConfirm] = useState(false);
  const revoke = useOperation('remote.revokeClient', refresh, () => setConfirm(false));
  return (
    <li data-testid="remote-client" aria-label={client.clientId}>
      <div className="secret-row">
        <span className="secret-name">{client.clientName}</span>
        <code>{client.clientId}</code>
        <span className="muted">created {new Date(client.createdAt).toLocaleString()}</span>
        <RowConfirm
          open={confirm}
          setOpen={setConfirm}
          action="Delete"
          question="Delete this client and revoke its grants?"
          confirmLabel="Confirm delete"
          busy={revoke.isPending}
          onConfirm={() => revoke.mutate({ clientId: client.clientId })}
        />
      </div>
      <ErrorBanner error={revoke.error} />
    </li>
  );
}
