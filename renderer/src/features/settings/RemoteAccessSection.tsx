import { useState, type FormEvent } from 'react';
import type { RemoteClass, RemoteGrant, RemotePending } from '../../../../shared/contract';
import { Banner, ErrorBanner } from '../../shell/ErrorBanner';
import { PreregisteredClients } from './PreregisteredClients';
import { PhoneAccess } from './PhoneAccessSection';
import { SettingsSection } from './SettingsSection';
import { useRemoteGrants, useRemoteOp, useRemotePending, useRemoteStatus } from './use-remote';
import { RowConfirm } from '../../shell/RowConfirm';

const isLoopback = (host: string): boolean => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : 'never');

/**
 * Remote connectors (Claude on the phone): the public origin a tunnel of yours serves, connectors
 * waiting for your approval (check the code their page shows), and the grants you approved.
 */
export function RemoteAccessSection() {
  const status = useRemoteStatus();
  const on = Boolean(status.data?.publicOrigin);
  const pending = useRemotePending(on);
  const grants = useRemoteGrants();
  const waiting = pending.data?.pending ?? [];
  const list = grants.data?.grants ?? [];
  return (
    <SettingsSection id="remote" title="Access (remote connectors)">
      <p className="muted">
        Claude on the phone reaches Nexus through a public https name you run (Tailscale Funnel, a Cloudflare tunnel,
        ngrok). On that name only sign-in and the MCP endpoint answer; see docs/remote.md.
      </p>
      <ErrorBanner error={status.error} />
      {status.data ? (
        <PublicOriginForm origin={status.data.publicOrigin} pinned={status.data.source === 'flag'} />
      ) : null}
      {status.data?.connectorUrl ? (
        <p>
          Connector URL for Claude: <code data-testid="connector-url">{status.data.connectorUrl}</code>
        </p>
      ) : null}
      {on ? (
        <>
          <h3>Connectors waiting</h3>
          <ErrorBanner error={pending.error} />
          {pending.data && waiting.length === 0 ? <p className="muted">None waiting.</p> : null}
          <ul className="list" aria-label="Connectors waiting">
            {waiting.map((p) => (
              <PendingItem key={p.id} pending={p} />
            ))}
          </ul>
        </>
      ) : null}
      <h3>Connector grants</h3>
      <ErrorBanner error={grants.error} />
      {grants.data && list.length === 0 ? <p className="muted">No connector has been approved.</p> : null}
      <ul className="list" aria-label="Connector grants">
        {list.map((g) => (
          <GrantItem key={g.id} grant={g} />
        ))}
      </ul>
      <PreregisteredClients />
      <PhoneAccess publicOrigin={on} />
    </SettingsSection>
  );
}

function PublicOriginForm({ origin, pinned }: { origin: string | null; pinned: boolean }) {
  const [value, setValue] = useState(origin ?? '');
  const save = useRemoteOp('remote.setOrigin');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ publicOrigin: value.trim() === '' ? null : value.trim() });
  };
  if (pinned)
    return (
      <p>
        Public origin <code>{origin}</code> (set by --public-origin / NEXUS_PUBLIC_ORIGIN).
      </p>
    );
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Public origin">
      <label htmlFor="public-origin">Public origin</label>
      <input
        id="public-origin"
        value={value}
        placeholder="https://nexus.example.ts.net (empty: off)"
        onChange={(e) => setValue(e.target.value)}
      />
      <ErrorBanner error={save.error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {value.trim() === '' ? 'Turn off' : 'Save'}
        </button>
      </div>
    </form>
  );
}

function PendingItem({ pending }: { pending: RemotePending }) {
  const [cls, setCls] = useState<RemoteClass>('read');
  const approve = useRemoteOp('remote.approve');
  const deny = useRemoteOp('remote.deny');
  const busy = approve.isPending || deny.isPending;
  return (
    <li data-testid="remote-pending" aria-label={`${pending.clientName} waiting`}>
      <div className="secret-row">
        <span className="secret-name">{pending.clientName}</span>
        <span className="muted">via {pending.redirectHost}</span>
        <code data-testid="remote-pending-code">{pending.code}</code>
        <span className="muted">asks {pending.classAsked}</span>
        <label htmlFor={`remote-class-${pending.id}`}>Class</label>
        <select id={`remote-class-${pending.id}`} value={cls} onChange={(e) => setCls(e.target.value as RemoteClass)}>
          <option value="read">Read — list and inspect, Nexus state</option>
          <option value="write">Write — + create, delete and message sessions</option>
        </select>
        <span className="row-actions">
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => approve.mutate({ id: pending.id, class: cls })}
          >
            Approve
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => deny.mutate({ id: pending.id })}>
            Deny
          </button>
        </span>
      </div>
      {isLoopback(pending.redirectHost) ? (
        <Banner tone="warn">
          This request sends its code to a program on some computer ({pending.redirectHost}), not to Claude on the web.
          Approve it only if you started it and the code matches.
        </Banner>
      ) : null}
      <ErrorBanner error={approve.error ?? deny.error} />
    </li>
  );
}

function GrantItem({ grant }: { grant: RemoteGrant }) {
  const [confirm, setConfirm] = useState(false);
  const revoke = useRemoteOp('remote.revoke', () => setConfirm(false));
  return (
    <li data-testid="remote-grant" aria-label={grant.clientName}>
      <div className="secret-row">
        <span className="secret-name">{grant.clientName}</span>
        <span className="muted">via {grant.redirectHost}</span>
        <span className="chip">{grant.class}</span>
        <span className={`chip state-${grant.revokedAt ? 'revoked' : 'active'}`}>
          {grant.revokedAt ? 'revoked' : 'active'}
        </span>
        <span className="muted">created {when(grant.createdAt)}</span>
        <span className="muted">last used {when(grant.lastUsedAt)}</span>
        {grant.revokedAt ? null : (
          <RowConfirm
            open={confirm}
            setOpen={setConfirm}
            action="Revoke"
            question={`Revoke “${grant.clientName}” and all its tokens?`}
            confirmLabel="Confirm revoke"
            busy={revoke.isPending}
            onConfirm={() => revoke.mutate({ id: grant.id })}
          />
        )}
      </div>
      <ErrorBanner error={revoke.error} />
    </li>
  );
}
