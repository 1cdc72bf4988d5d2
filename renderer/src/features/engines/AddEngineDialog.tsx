import { useState } from 'react';
import type { DockerContext, SecretSummary } from '../../../../shared/contract';
import { useOperation } from '../../api/use-operation';
import { FormDialog } from '../../shell/FormDialog';
import { enginesKey } from './use-engines';

/** A required pick of one vault secret of `kind`; `none` says which kind to choose. */
function SecretSelect(props: {
  value: string;
  onChange: (id: string) => void;
  secrets: readonly SecretSummary[];
  kind: SecretSummary['kind'];
  none: string;
}) {
  return (
    <select value={props.value} onChange={(e) => props.onChange(e.target.value)} required>
      <option value="">{props.none}</option>
      {props.secrets
        .filter((s) => s.kind === props.kind)
        .map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
    </select>
  );
}

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
            <SecretSelect
              value={caSecretId}
              onChange={setCa}
              secrets={props.secrets}
              kind="tls_certificate"
              none="Choose a TLS certificate secret…"
            />
          </label>
          <label className="field">
            Client certificate
            <SecretSelect
              value={certSecretId}
              onChange={setCert}
              secrets={props.secrets}
              kind="tls_certificate"
              none="Choose a TLS certificate secret…"
            />
          </label>
          <label className="field">
            Client key
            <SecretSelect
              value={tlsKeySecretId}
              onChange={setTlsKey}
              secrets={props.secrets}
              kind="tls_private_key"
              none="Choose a TLS private key secret…"
            />
          </label>
        </>
      ) : (
        <label className="field">
          SSH private key
          <SecretSelect
            value={keySecretId}
            onChange={setKeySecretId}
            secrets={props.secrets}
            kind="ssh_private_key"
            none="Choose an SSH private key secret…"
          />
          <small>Add it under Secrets (kind “SSH private key”). It is sent only after you confirm the host key.</small>
        </label>
      )}
    </FormDialog>
  );
}
