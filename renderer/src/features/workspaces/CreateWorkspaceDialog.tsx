import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Workspace } from '../../../../shared/contract';
import { useApi } from '../../api/context';

/** Create dialog: name, repository URL and the vault secret holding the provider token (picked from `secrets.list`). */
export function CreateWorkspaceDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (w: Workspace) => void;
}) {
  const api = useApi();
  const [name, setName] = useState('');
  const [repoUrl, setRepoUrl] = useState('');
  const [secretId, setSecretId] = useState('');
  const secrets = useQuery({ queryKey: ['secrets.list'], queryFn: () => api['secrets.list']({}), retry: false });
  const create = useMutation({
    mutationFn: () =>
      api['workspaces.create']({
        name: name.trim(),
        repoUrl: repoUrl.trim(),
        ...(secretId.trim() ? { secretId: secretId.trim() } : {}),
      }),
    onSuccess: (w) => {
      onCreated(w);
      onClose();
    },
  });
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <div className="modal-backdrop">
      <form role="dialog" aria-modal="true" aria-labelledby="create-title" className="modal" onSubmit={submit}>
        <h2 id="create-title">New workspace</h2>
        <label className="field">
          Name
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            pattern="[a-z0-9]([a-z0-9\-]{0,38}[a-z0-9])?"
            placeholder="my-project"
            autoFocus
          />
          <small>Lowercase letters, digits and dashes.</small>
        </label>
        <label className="field">
          Repository URL
          <input
            value={repoUrl}
            onChange={(e) => setRepoUrl(e.target.value)}
            required
            type="url"
            placeholder="https://github.com/owner/repo.git"
          />
        </label>
        <label className="field">
          Secret
          <select value={secretId} onChange={(e) => setSecretId(e.target.value)}>
            <option value="">None (public repository)</option>
            {(secrets.data?.secrets ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.kind}
                {s.host ? `, ${s.host}` : ''}
                {s.last4 ? `, …${s.last4}` : ''})
              </option>
            ))}
          </select>
          <small>
            {secrets.error
              ? `Secrets are unavailable: ${secrets.error.message}`
              : 'The token reaches git inside the container through a credential helper only.'}
          </small>
        </label>
        {create.error ? (
          <p role="alert" className="banner bad">
            {create.error.message}
          </p>
        ) : null}
        <div className="modal-actions">
          <button type="button" onClick={onClose} disabled={create.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create'}
          </button>
        </div>
      </form>
    </div>
  );
}
