import type { ReactNode } from 'react';

/**
 * A row's destructive action asked again in place: the action button, then the question with a
 * danger button and Cancel. The row owns `open`, so it can close it when the action succeeds.
 */
export function RowConfirm({
  open,
  setOpen,
  action,
  question,
  confirmLabel,
  busy,
  onConfirm,
}: {
  open: boolean;
  setOpen: (open: boolean) => void;
  action: string;
  question: ReactNode;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => void;
}) {
  return (
    <span className="row-actions">
      {open ? (
        <>
          <span>{question}</span>
          <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
            {confirmLabel}
          </button>
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" onClick={() => setOpen(true)}>
          {action}
        </button>
      )}
    </span>
  );
}
