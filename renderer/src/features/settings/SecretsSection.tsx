import { useState, type FormEvent } from 'react';
import { VaultSecretKind, type SecretKind, type SecretSummary } from '../../../../shared/contract';
import { useOpQuery } from '../../api/use-op-query';
import { Banner, ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';
import { useSecrets, useVaultOp, useVaultStatus } from './use-vault';

/** The vault's own kinds; the agent credential kinds come from agent.get (each agent kind's driver declares them). */
const vaultKinds: Record<VaultSecretKind, { label: string; host: string; multiLine?: true }> = {
  github: { label: 'GitHub', host: 'github.com' },
  gitlab: { label: 'GitLab', host: 'gitlab.com' },
  generic: { label: 'Other', host: '' },
  ssh_private_key: { label: 'SSH private key (remote engine)', host: '', multiLine: true },
  tls_certificate: { label: 'TLS certificate, PEM (remote engine CA or client)', host: '', multiLine: true },
  tls_private_key: { label: 'TLS private key, PEM (remote engine client)', host: '', multiLine: true },
};
const isVaultKind = (kind: SecretKind): kind is VaultSecretKind => VaultSecretKind.safeParse(kind).success;
const vaultKind = (kind: SecretKind) => (isVaultKind(kind) ? vaultKinds[kind] : undefined);
const defaultHost = (kind: SecretKind) => vaultKind(kind)?.host ?? '';

interface KindOption {
  value: SecretKind;
  label: string;
}

/** Every kind a secret may have: the vault's own, then each agent credential with the agents it signs in. */
function useSecretKinds(): KindOption[] {
  const agent = useOpQuery('agent.get', {}, { retry: false });
  const labelOf = new Map((agent.data?.kinds ?? []).map((k) => [k.kind, k.label]));
  return [
    ...Object.entries(vaultKinds).map(([value, k]) => ({ value, label: k.label })),
    ...(agent.data?.credentials ?? []).map((c) => ({
      value: c.kind,
      label: `${c.label} (${c.agents.map((a) => labelOf.get(a) ?? a).join(', ')})`,
    })),
  ];
}

/** Provider tokens and other secrets. Values go in and are never shown again: only the last 4 characters. */
export function SecretsSection() {
  const vault = useVaultStatus();
  const list = useSecrets();
  const state = vault.data?.state;
  const secrets = list.data?.secrets ?? [];
  return (
    <SettingsSection id="secrets" title="Secrets">
      {list.isPending ? <p>Loading…</p> : null}
      <ErrorBanner error={list.error} />
      {state === 'uninitialized' ? <p className="muted">Set up the vault first to store provider tokens.</p> : null}
      {state === 'locked' ? (
        <Banner tone="warn" note>
          The vault is locked: secrets can be listed and deleted, but not added or changed.
        </Banner>
      ) : null}
      {list.data && secrets.length === 0 && state !== 'uninitialized' ? <p className="muted">No secrets yet.</p> : null}
      {secrets.length > 0 ? (
        <ul className="list" aria-label="Secrets">
          {secrets.map((s) => (
            <SecretItem key={s.id} secret={s} canEdit={state === 'unlocked'} />
          ))}
        </ul>
      ) : null}
      {state === 'unlocked' ? <AddSecretForm /> : null}
    </SettingsSection>
  );
}

function SecretItem({ secret, canEdit }: { secret: SecretSummary; canEdit: boolean }) {
  const kinds = useSecretKinds();
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const remove = useVaultOp('secrets.delete');
  if (mode === 'edit') return <EditSecretForm secret={secret} onDone={() => setMode('view')} />;
  return (
    <li data-testid="secret-item" aria-label={secret.name}>
      <div className="secret-row">
        <span className="secret-name">{secret.name}</span>
        <span className="chip">{kinds.find((k) => k.value === secret.kind)?.label ?? secret.kind}</span>
        {secret.host ? <span className="muted">{secret.host}</span> : null}
        <code className="secret-hint" data-testid="secret-hint" title="Only the last 4 characters are ever shown">
          {secret.last4 ? `••••${secret.last4}` : '••••'}
        </code>
        <span className="row-actions">
          {mode === 'delete' ? (
            <>
              <span>Delete “{secret.name}”?</span>
              <button
                type="button"
                className="danger"
                disabled={remove.isPending}
                onClick={() => remove.mutate({ id: secret.id })}
              >
                {remove.isPending ? 'Deleting…' : 'Confirm delete'}
              </button>
              <button type="button" onClick={() => setMode('view')}>
                Cancel
              </button>
            </>
          ) : (
            <>
              {canEdit ? (
                <button type="button" onClick={() => setMode('edit')}>
                  Edit
                </button>
              ) : null}
              <button type="button" onClick={() => setMode('delete')}>
                Delete
              </button>
            </>
          )}
        </span>
      </div>
      <ErrorBanner error={remove.error} />
    </li>
  );
}

function SecretFields(props: {
  prefix: string;
  name: string;
  kind: SecretKind;
  host: string;
  value: string;
  valueLabel: string;
  onChange(patch: Partial<{ name: string; kind: SecretKind; host: string; value: string }>): void;
}) {
  const kinds = useSecretKinds();
  const id = (f: string) => `${props.prefix}-${f}`;
  return (
    <>
      <label htmlFor={id('name')}>Name</label>
      <input id={id('name')} value={props.name} onChange={(e) => props.onChange({ name: e.target.value })} />
      <label htmlFor={id('kind')}>Kind</label>
      <select id={id('kind')} value={props.kind} onChange={(e) => props.onChange({ kind: e.target.value })}>
        {kinds.map((k) => (
          <option key={k.value} value={k.value}>
            {k.label}
          </option>
        ))}
      </select>
      <label htmlFor={id('host')}>Host</label>
      <input
        id={id('host')}
        value={props.host}
        placeholder="github.com"
        onChange={(e) => props.onChange({ host: e.target.value })}
      />
      <label htmlFor={id('value')}>{props.valueLabel}</label>
      {vaultKind(props.kind)?.multiLine ? (
        // A PEM or OpenSSH key spans lines, which a password field would drop.
        <textarea
          id={id('value')}
          rows={4}
          autoComplete="off"
          spellCheck={false}
          value={props.value}
          onChange={(e) => props.onChange({ value: e.target.value })}
        />
      ) : (
        <input
          id={id('value')}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={props.value}
          onChange={(e) => props.onChange({ value: e.target.value })}
        />
      )}
    </>
  );
}

function AddSecretForm() {
  const empty = { name: '', kind: 'github' as SecretKind, host: defaultHost('github'), value: '' };
  const [form, setForm] = useState(empty);
  const create = useVaultOp('secrets.create', () => setForm(empty));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(form);
  };
  const change = (patch: Partial<typeof form>) =>
    setForm((f) => ({
      ...f,
      ...patch,
      ...(patch.kind && f.host === defaultHost(f.kind) ? { host: defaultHost(patch.kind) } : {}),
    }));
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Add a secret">
      <h3>Add a secret</h3>
      <SecretFields prefix="secret-new" {...form} valueLabel="Value" onChange={change} />
      <ErrorBanner error={create.error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={create.isPending || !form.name || !form.value}>
          {create.isPending ? 'Adding…' : 'Add secret'}
        </button>
      </div>
    </form>
  );
}

function EditSecretForm({ secret, onDone }: { secret: SecretSummary; onDone(): void }) {
  const [form, setForm] = useState({ name: secret.name, kind: secret.kind, host: secret.host, value: '' });
  const update = useVaultOp('secrets.update', onDone);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({
      id: secret.id,
      name: form.name,
      kind: form.kind,
      host: form.host,
      ...(form.value ? { value: form.value } : {}),
    });
  };
  return (
    <li aria-label={`Edit ${secret.name}`}>
      <form className="form-grid" onSubmit={submit} aria-label={`Edit ${secret.name}`}>
        <SecretFields
          prefix={`secret-${secret.id}`}
          {...form}
          valueLabel="New value (leave empty to keep)"
          onChange={(p) => setForm((f) => ({ ...f, ...p }))}
        />
        <ErrorBanner error={update.error} />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={update.isPending || !form.name}>
            {update.isPending ? 'Saving…' : 'Save'}
          </button>
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
    </li>
  );
}
