import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { OpName, OpOutput, PhoneDevice, PhoneInvite } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';

const phoneStatusKey = ['phone.status'] as const;
const phoneDevicesKey = ['phone.devices'] as const;
const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : 'never');
const usePhoneOp = <K extends OpName>(name: K, onSuccess?: (result: OpOutput<K>) => void) =>
  useOperation(name, [phoneStatusKey, phoneDevicesKey], onSuccess);

/**
 * Beside the public origin: the operator UI on the phone (off by default), a one-time link that
 * registers a phone's passkey, and the registered phones with Revoke.
 */
export function PhoneAccess({ publicOrigin }: { publicOrigin: boolean }) {
  const api = useApi();
  const status = useQuery({ queryKey: phoneStatusKey, queryFn: () => api['phone.status']({}) });
  const devices = useQuery({ queryKey: phoneDevicesKey, queryFn: () => api['phone.devices']({}) });
  const toggle = usePhoneOp('phone.setEnabled');
  const enabled = status.data?.enabled ?? false;
  const list = devices.data?.devices ?? [];
  return (
    <>
      <h3>Phone</h3>
      <p className="muted">
        The operator UI on the public origin, for your phone: what needs you, sessions, board and review, signed in with
        a passkey. Vault, secrets, tokens, engines and these settings stay on this computer.
      </p>
      <ErrorBanner error={status.error ?? toggle.error} />
      <label className="checkbox">
        <input
          type="checkbox"
          data-testid="phone-enabled"
          checked={enabled}
          disabled={!status.data || toggle.isPending}
          onChange={(e) => toggle.mutate({ enabled: e.target.checked })}
        />{' '}
        Serve the operator UI on the public origin
      </label>
      {enabled && !publicOrigin ? <p className="muted">Set a public origin above first.</p> : null}
      {status.data?.phoneUrl ? (
        <>
          <p>
            Phone URL: <code data-testid="phone-url">{status.data.phoneUrl}</code>
          </p>
          <InviteForm />
        </>
      ) : null}
      <ErrorBanner error={devices.error} />
      {devices.data && list.length === 0 ? <p className="muted">No phone is registered.</p> : null}
      <ul className="list" aria-label="Phones">
        {list.map((d) => (
          <DeviceItem key={d.id} device={d} />
        ))}
      </ul>
    </>
  );
}

function InviteForm() {
  const [name, setName] = useState('My phone');
  const [invite, setInvite] = useState<PhoneInvite | null>(null);
  const make = usePhoneOp('phone.invite', setInvite);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    make.mutate({ name: name.trim() });
  };
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Register a phone">
      <label htmlFor="phone-name">Phone name</label>
      <input id="phone-name" value={name} maxLength={60} onChange={(e) => setName(e.target.value)} />
      <ErrorBanner error={make.error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={make.isPending || name.trim() === ''}>
          Make a registration link
        </button>
      </div>
      {invite ? (
        <p className="banner" role="status">
          Open this link on the phone within 10 minutes (it works once):{' '}
          <code data-testid="phone-invite-url">{invite.url}</code>
        </p>
      ) : null}
    </form>
  );
}

function DeviceItem({ device }: { device: PhoneDevice }) {
  const revoke = usePhoneOp('phone.revoke');
  return (
    <li data-testid="phone-device" aria-label={device.name}>
      <div className="secret-row">
        <span className="secret-name">{device.name}</span>
        <span className={`chip state-${device.revokedAt ? 'revoked' : 'active'}`}>
          {device.revokedAt ? 'revoked' : 'active'}
        </span>
        <span className="muted">registered {when(device.createdAt)}</span>
        <span className="muted">last sign-in {when(device.lastUsedAt)}</span>
        <span className="muted">{device.activeSessions} signed in</span>
        {device.revokedAt ? null : (
          <span className="row-actions">
            <button
              type="button"
              className="danger"
              disabled={revoke.isPending}
              onClick={() => revoke.mutate({ id: device.id })}
            >
              Revoke
            </button>
          </span>
        )}
      </div>
      <ErrorBanner error={revoke.error} />
    </li>
  );
}
