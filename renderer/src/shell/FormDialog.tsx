import type { FormEvent, ReactNode, RefObject } from 'react';
import { Dialog } from './Dialog';
import { ErrorBanner } from './ErrorBanner';

/**
 * A modal form: its title, its fields, the error of the last attempt, and Cancel beside the
 * primary action (disabled while it runs). The one shape of every "edit and save" dialog. The
 * field marked `data-autofocus` (else the first one) gets the focus; Escape is Cancel.
 */
export function FormDialog(props: {
  title: ReactNode;
  onSubmit(): void;
  onCancel(): void;
  pending: boolean;
  error?: Error | null;
  action: string;
  pendingAction: string;
  /** False keeps the primary action disabled (the form is not complete). */
  ready?: boolean;
  /** The form element, for a schema-checked form that moves the focus to its first invalid field. */
  formRef?: RefObject<HTMLFormElement | null>;
  children: ReactNode;
}) {
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    props.onSubmit();
  };
  return (
    <Dialog title={props.title} onClose={props.onCancel} busy={props.pending}>
      <form className="modal-form" onSubmit={submit} ref={props.formRef} noValidate={props.formRef !== undefined}>
        {props.children}
        <ErrorBanner error={props.error} />
        <div className="modal-actions">
          <button type="button" onClick={props.onCancel} disabled={props.pending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={props.pending || props.ready === false}>
            {props.pending ? props.pendingAction : props.action}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
