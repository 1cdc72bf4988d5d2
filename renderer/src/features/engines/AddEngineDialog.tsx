import { useState } from 'react';
import type { DockerContext, SecretSummary } from '../../../../shared/contract';
import { useOperation } from '../../api/use-operation';
import { FormDialog } from '../../shell/FormDialog';
import { enginesKey } from './use-engines';

const secretOptions = (secrets: readonly SecretSummary[], kind: SecretSummary['kind']) =>
  secrets
    .filter((s) => s.kind === kind)
    .map((s) => (
      <option key={s.id} value={s.id}>
        {s.name}
      </option>
    ));

/**
 * Add a remote engine: ssh://user@host[:port] with an SSH private key from the vault (the host key it
 * offers is shown next, to confirm), or tcp://host:2376 with TLS material from the vault. A Docker
 * context fills the address in.
 */
export function AddEngineDialog(props: {
  secrets: readonly SecretSummary[];
  contexts: readonly DockerContext[];
  onClose(): void;
}) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [keySecretId, setKeySecretId] = useState('');
  const [caSecretId, setCa] = useState('');
  const [certSecretId, setCert] = useState('');
  const [tlsKeySecretId, setTlsKey] = useState('');
  const add = useOperation('engines.add', [enginesKey], () => props.onClose());
  const tls = /^(tcp|https):\/\//.test(url.trim());
  const submit = (): void =>
    add.mutate({
      name: name.trim(),
      url: url.trim(),
      ...(tls ? { caSecretId, certSecretId, tlsKeySecretId } : { keySecretId }),
    });
  return (
    <FormDialog
      title="Add an engine"
      onSubmit={submit}
      onCancel={props.onClose}
      pending={add.isPending}
      error={add.error}
      action="Add"
      pendingAction="Contacting…"
      ready={Boolean(name.trim() && url.trim() && (tls ? caSecretId && certSecretId && tlsKeySecretId : keySecretId))}
    >
      {props.contexts.length > 0 ? (
        <label className="field">
          Import from a Docker context
          <select
            value=""
            onChange={(e) => {
              const c = props.contexts.find((x) => x.name === e.target.value);
              if (!c) return;
              setUrl(c.host);
              setName(
                (n) =>
                  n ||
                  c.name
                    .toLowerCase()
                    .replace(/[^a-z0-9-]/g, '-')
                    .slice(0, 32),
              );
            }}
          >
            <option value="">Choose a context…</option>
            {props.contexts.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name} — {c.host}
                {c.current ? ' (current)' : ''}
              </option>
            ))}
          </select>
          <small>Fills the address in; the key or TLS material still comes from the vault.</small>
        </label>
      ) : null}
      <label className="field">
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required placeholder="big-server" autoFocus />
      </label>
      <label className="field">
        Address
        <input
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          required
          placeholder="ssh://nexus@build.example.com"
        />
        <small>
          ssh://user@host[:port] (the user in the docker group), or tcp://host:2376 with TLS. An open TLS port gives its
          holder root on that host: prefer SSH.
        </small>
      </label>
      {tls ? (
        <>
          <label className="field">
            CA certificate
            <select value={caSecretId} onChange={(e) => setCa(e.target.value)} required>
              <option value="">Choose a TLS certificate secret…</option>
              {secretOptions(props.secrets, 'tls_certificate')}
            </select>
          </label>
          <label className="field">
            Client certificate
            <select value={certSecretId} onChange={(e) => setCert(e.target.value)} required>
              <option value="">Choose a TLS certificate secret…</option>
              {secretOptions(props.secrets, 'tls_certificate')}
            </select>
          </label>
          <label className="field">
            Client key
            <select value={tlsKeySecretId} onChange={(e) => setTlsKey(e.target.value)} required>
              <option value="">Choose a TLS private key secret…</option>
              {secretOptions(props.secrets, 'tls_private_key')}
            </select>
          </label>
        </>
      ) : (
        <label className="field">
          SSH private key
          <select value={keySecretId} onChange={(e) => setKeySecretId(e.target.value)} required>
            <option value="">Choose an SSH private key secret…</option>
            {secretOptions(props.secrets, 'ssh_private_key')}
          </select>
          <small>Add it under Secrets (kind “SSH private key”). It is sent only after you confirm the host key.</small>
        </label>
      )}
    </FormDialog>
  );
}
