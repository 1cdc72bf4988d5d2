import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import type { FleetAccess, FleetCredential, Workspace } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { FleetAccessField } from './FleetAccessField';
import { fleetKey } from './use-workspaces';

/** Edits a workspace's fleet credential (fleet.set); sessions launched from now on get the new one. */
export function FleetAccessDialog({
  workspace: w,
  current,
  onClose,
}: {
  workspace: Workspace;
  /** Its active credential, if any (from fleet.list). */
  current: FleetCredential | undefined;
  onClose: () => void;
}) {
  const api = useApi();
  const client = useQueryClient();
  const [access, setAccess] = useState<FleetAccess>('none');
  const [allWorkspaces, setAllWorkspaces] = useState(false);
  useEffect(() => {
    setAccess(current?.class ?? 'none');
    setAllWorkspaces(current?.allWorkspaces ?? false);
  }, [current?.class, current?.allWorkspaces]);
  const save = useMutation({
    mutationFn: () => api['fleet.set']({ workspace: w.id, access, allWorkspaces }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: fleetKey });
      onClose();
    },
  });
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <div className="modal-backdrop">
      <form role="dialog" aria-modal="true" aria-labelledby="fleet-title" className="modal" onSubmit={submit}>
        <h2 id="fleet-title">Fleet access for {w.name}</h2>
        <FleetAccessField
          access={access}
          allWorkspaces={allWorkspaces}
          onChange={(a, all) => {
            setAccess(a);
            setAllWorkspaces(all);
          }}
        />
        <small>
          A new class replaces the token and revokes the old one; running sessions keep the old one until relaunched.
        </small>
        {save.error ? (
          <p role="alert" className="banner bad">
            {save.error.message}
          </p>
        ) : null}
        <div className="modal-actions">
          <button type="button" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </div>
  );
}
