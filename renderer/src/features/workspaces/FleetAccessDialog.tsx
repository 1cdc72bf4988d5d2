import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { FleetAccess, FleetCredential, Workspace } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { FormDialog } from '../../shell/FormDialog';
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
  return (
    <FormDialog
      title={<>Fleet access for {w.name}</>}
      onSubmit={() => save.mutate()}
      onCancel={onClose}
      pending={save.isPending}
      error={save.error}
      action="Save"
      pendingAction="Saving…"
    >
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
    </FormDialog>
  );
}
