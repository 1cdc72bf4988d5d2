import { useId } from 'react';
import './dialog.css';

/**
 * A field's message next to it: the input gets `aria-invalid` and is described by the message
 * (or by its hint while it has none). Spread `input` on the control, render `message` after it.
 */
export function useFieldError(message: string | undefined, hintId?: string) {
  const id = useId();
  const describedBy = message ? id : hintId;
  return {
    input: { 'aria-invalid': message ? true : undefined, ...(describedBy ? { 'aria-describedby': describedBy } : {}) },
    message: message ? (
      <small id={id} className="field-error">
        {message}
      </small>
    ) : null,
  };
}
