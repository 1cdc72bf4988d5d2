import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Orphan } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { ConfirmDialog } from '../../shell/ConfirmDialog';
import { orphansKey, useOrphans } from './use-workspaces';

/** Containers labelled as this Nexus's workspaces that have no workspace record. */
export function OrphanList() {
  const orphans = useOrphans();
  const list = orphans.data?.orphans ?? [];
  if (list.length === 0) return null;
  return (
    <section aria-labelledby="orphans-title" className="orphans">
      <h2 id="orphans-title">Orphaned containers</h2>
      <p className="muted">Labelled as Nexus workspaces of this install, but without a workspace record.</p>
      <ul className="list">
        {list.map((o) => (
          <OrphanRow key={o.containerId} orphan={o} />
        ))}
      </ul>
    </section>
  );
}

function OrphanRow({ orphan }: { orphan: Orphan }) {
  const api = useApi();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => api['workspaces.removeOrphan']({ containerId: orphan.containerId }),
    onSuccess: () => void client.invalidateQueries({ queryKey: orphansKey }),
  });
  return (
    <li data-testid={`orphan-${orphan.name}`}>
      <strong>{orphan.name}</strong> <span className="chip">{orphan.state}</span>{' '}
      <span className="muted">{orphan.image}</span>
      <button type="button" className="danger" onClick={() => setConfirming(true)}>
        Remove
      </button>
      {confirming ? (
        <ConfirmDialog
          title={`Remove ${orphan.name}?`}
          confirmLabel="Remove container"
          busy={remove.isPending}
          error={remove.error}
          onCancel={() => setConfirming(false)}
          onConfirm={() => remove.mutate()}
        >
          <p>The container and its workspace volume are removed.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}
