import type { FormEvent, ReactNode } from 'react';

/**
 * A modal form: its title, its fields, the error of the last attempt, and Cancel beside the
 * primary action (disabled while it runs). The one shape of every "edit and save" dialog.
 */
export function FormDialog(props: {
  id: string;
  title: ReactNode;
  onSubmit(): void;
  onCancel(): void;
  pending: boolean;
  error?: Error | null;
  action: string;
  pendingAction: string;
  /** False keeps the primary action disabled (the form is not complete). */
  ready?: boolean;
  children: ReactNode;
}) {
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    props.onSubmit();
  };
  return (
    <div className="modal-backdrop">
      <form role="dialog" aria-modal="true" aria-labelledby={props.id} className="modal" onSubmit={submit}>
        <h2 id={props.id}>{props.title}</h2>
        {props.children}
        {props.error ? (
          <p role="alert" className="banner bad">
            {props.error.message}
          </p>
        ) : null}
        <div className="modal-actions">
          <button type="button" onClick={props.onCancel} disabled={props.pending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={props.pending || props.ready === false}>
            {props.pending ? props.pendingAction : props.action}
          </button>
        </div>
      </form>
    </div>
  );
}
