import type { ReactNode } from 'react';
import { Dialog } from './Dialog';
import { ErrorBanner } from './ErrorBanner';

/**
 * Asks the operator to confirm a destructive action. Cancel has the first focus (Enter does not
 * destroy anything by accident); Escape cancels unless the action is under way.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
  ready,
  error,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  /** The action is under way: both buttons and Escape wait for it. */
  busy?: boolean;
  /** False keeps the action disabled (a second yes is still missing); Cancel stays available. */
  ready?: boolean;
  /** The error of the last attempt, shown above the buttons. */
  error?: Error | null;
}) {
  return (
    <Dialog title={title} onClose={onCancel} busy={busy}>
      {children}
      <ErrorBanner error={error} />
      <div className="modal-actions">
        <button type="button" onClick={onCancel} disabled={busy} data-autofocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy || ready === false}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
