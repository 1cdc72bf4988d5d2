import { useState } from 'react';
import type { Engine } from '../../../../shared/contract';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ConfirmDialog } from '../../shell/ConfirmDialog';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from '../settings/SettingsSection';
import { useSecrets } from '../settings/use-vault';
import { AddEngineDialog } from './AddEngineDialog';
import { enginesKey, formatBytes, useEngines } from './use-engines';
import './engines.css';

const stateText: Record<Engine['state'], string> = {
  reachable: 'reachable',
  unreachable: 'unreachable',
  pending_host_key: 'confirm host key',
  host_key_changed: 'host key changed',
};
const stateTone: Record<Engine['state'], string> = {
  reachable: 'ok',
  unreachable: 'bad',
  pending_host_key: 'warn',
  host_key_changed: 'bad',
};

/** Settings → Engines: the local engine and remote ones, with reachability, size and the workspaces on each. */
export function EnginesSection() {
  const engines = useEngines();
  const secrets = useSecrets();
  const contexts = useOpQuery('engines.contexts', {}, { retry: false });
  const [adding, setAdding] = useState(false);
  return (
    <SettingsSection id="engines" title="Engines">
      <p className="muted">
        Docker engines workspaces live on. A new workspace goes to the reachable engine with the fewest running sessions
        unless you choose one.
      </p>
      <ErrorBanner error={engines.error} />
      <ul className="engine-list" data-testid="engine-list">
        {(engines.data?.engines ?? []).map((e) => (
          <EngineItem key={e.id} engine={e} />
        ))}
      </ul>
      <button type="button" onClick={() => setAdding(true)}>
        Add an engine…
      </button>
      {adding ? (
        <AddEngineDialog
          secrets={secrets.data?.secrets ?? []}
          contexts={contexts.data?.contexts ?? []}
          onClose={() => setAdding(false)}
        />
      ) : null}
    </SettingsSection>
  );
}

function EngineItem({ engine: e }: { engine: Engine }) {
  const confirm = useOperation('engines.confirmHostKey', [enginesKey]);
  const remove = useOperation('engines.remove', [enginesKey]);
  const [removing, setRemoving] = useState(false);
  return (
    <li data-testid={`engine-${e.name}`}>
      <div className="engine-head">
        <strong>{e.name}</strong> <code>{e.url}</code>{' '}
        <span className={`chip chip-${stateTone[e.state]}`} data-testid="engine-state">
          {stateText[e.state]}
        </span>
      </div>
      <dl className="facts">
        <dt>Docker</dt>
        <dd>{e.version ?? '…'}</dd>
        <dt>CPUs / memory</dt>
        <dd>
          {e.cpus ?? '…'} / {formatBytes(e.memoryBytes)}
        </dd>
        <dt>Workspaces</dt>
        <dd>
          {e.runningWorkspaces} running of {e.workspaces}
        </dd>
        {e.sshConnections && e.sshConnections > 1 ? (
          <>
            <dt>SSH link</dt>
            <dd data-testid="engine-reconnects">
              reconnected {e.sshConnections - 1} {e.sshConnections === 2 ? 'time' : 'times'}
            </dd>
          </>
        ) : null}
        {e.hostKeyFingerprint ? (
          <>
            <dt>Host key</dt>
            <dd>
              <code>{e.hostKeyFingerprint}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {e.reason && e.state !== 'reachable' ? <p className="muted">{e.reason}</p> : null}
      {e.state === 'pending_host_key' && e.hostKeyFingerprint ? (
        <p>
          Compare with <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code> on the host, then{' '}
          <button
            type="button"
            disabled={confirm.isPending}
            onClick={() => confirm.mutate({ engine: e.id, fingerprint: e.hostKeyFingerprint ?? '' })}
          >
            Confirm this host key
          </button>
        </p>
      ) : null}
      <ErrorBanner error={confirm.error ?? remove.error} />
      {e.kind !== 'local' ? (
        <button type="button" className="danger" onClick={() => setRemoving(true)}>
          Remove…
        </button>
      ) : null}
      {removing ? (
        <ConfirmDialog
          title={`Remove engine ${e.name}?`}
          confirmLabel="Remove"
          busy={remove.isPending}
          onCancel={() => setRemoving(false)}
          onConfirm={() => remove.mutate({ engine: e.id }, { onSettled: () => setRemoving(false) })}
        >
          <p>Nexus forgets the engine and its pinned host key. Refused while a workspace lives on it.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}
