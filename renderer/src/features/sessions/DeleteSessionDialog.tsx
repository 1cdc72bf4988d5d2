import { useState } from 'react';
import type { Session } from '../../../../shared/contract/sessions';
import { useOperation } from '../../api/use-operation';
import { ConfirmDialog } from '../../shell/ConfirmDialog';
import { sessionsKey } from './use-sessions';

/** Delete a session: its worktree goes, its branch stays unless asked; unpushed commits need a second yes. */
export function DeleteSessionButton({ session }: { session: Session }) {
  const [open, setOpen] = useState(false);
  const [alsoBranch, setAlsoBranch] = useState(false);
  const [force, setForce] = useState(false);
  const remove = useOperation('sessions.delete', [sessionsKey], () => setOpen(false));
  const refusedUnpushed = remove.error?.message.includes('not pushed') ?? false;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Delete session
      </button>
      {open ? (
        <ConfirmDialog
          title={`Delete session ${session.name}?`}
          confirmLabel={refusedUnpushed ? 'Delete with unpushed commits' : 'Delete'}
          busy={remove.isPending}
          ready={!(refusedUnpushed && alsoBranch && !force)}
          error={remove.error}
          onCancel={() => {
            setOpen(false);
            remove.reset();
          }}
          onConfirm={() =>
            remove.mutate({
              session: session.id,
              ...(alsoBranch ? { deleteBranch: true } : {}),
              ...(alsoBranch && force ? { force: true } : {}),
            })
          }
        >
          <p>
            Its agent stops and its worktree is removed (uncommitted changes in it are lost). Branch{' '}
            <code>{session.branch}</code> stays in the workspace unless you delete it too.
          </p>
          <label>
            <input type="checkbox" checked={alsoBranch} onChange={(e) => setAlsoBranch(e.target.checked)} /> Also delete
            branch {session.branch}
          </label>
          {alsoBranch && refusedUnpushed ? (
            <label>
              <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Yes, lose its
              unpushed commits
            </label>
          ) : null}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
