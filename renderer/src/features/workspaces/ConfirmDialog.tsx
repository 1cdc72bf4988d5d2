import type { ReactNode } from 'react';

/** A small modal asking the operator to confirm a destructive action. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
}) {
  return (
    <div className="modal-backdrop">
      <div role="dialog" aria-modal="true" aria-labelledby="confirm-title" className="modal">
        <h2 id="confirm-title">{title}</h2>
        {children}
        <div className="modal-actions">
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="danger" onClick={onConfirm} disabled={busy} autoFocus>
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
