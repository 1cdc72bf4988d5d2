import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { DelegationAccess, Delegation, Workspace } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { FormDialog } from '../../shell/FormDialog';
import { DelegationField } from './DelegationField';
import { delegationsKey } from './use-workspaces';

/** Edits a workspace's delegated credential (delegation.set); sessions launched from now on get the new one. */
export function DelegationDialog({
  workspace: w,
  current,
  onClose,
}: {
  workspace: Workspace;
  /** Its active credential, if any (from delegation.list). */
  current: Delegation | undefined;
  onClose: () => void;
}) {
  const api = useApi();
  const client = useQueryClient();
  const [access, setAccess] = useState<DelegationAccess>('none');
  const [allWorkspaces, setAllWorkspaces] = useState(false);
  useEffect(() => {
    setAccess(current?.class ?? 'none');
    setAllWorkspaces(current?.allWorkspaces ?? false);
  }, [current?.class, current?.allWorkspaces]);
  const save = useMutation({
    mutationFn: () => api['delegation.set']({ workspace: w.id, access, allWorkspaces }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: delegationsKey });
      onClose();
    },
  });
  return (
    <FormDialog
      title={<>Delegation for {w.name}</>}
      onSubmit={() => save.mutate()}
      onCancel={onClose}
      pending={save.isPending}
      error={save.error}
      action="Save"
      pendingAction="Saving…"
    >
      <DelegationField
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
