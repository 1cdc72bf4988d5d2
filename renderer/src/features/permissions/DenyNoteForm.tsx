import { useState, type FormEvent } from 'react';
import { PermissionDecisionInput } from '../../../../shared/contract/permissions';

/** The longest note the contract takes (the field stops there instead of a refusal on send). */
const NOTE_MAX = PermissionDecisionInput.shape.note.unwrap().maxLength ?? undefined;

/** The note a denial carries to the agent (it reads it as the reason). */
export function DenyNoteForm({
  disabled,
  onDeny,
  onCancel,
}: {
  disabled: boolean;
  onDeny: (note: string) => void;
  onCancel: () => void;
}) {
  const [note, setNote] = useState('');
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (note.trim()) onDeny(note.trim());
  };
  return (
    <form className="permission-note" onSubmit={submit} aria-label="Deny with a note">
      <textarea
        name="note"
        aria-label="Note for the agent"
        rows={2}
        maxLength={NOTE_MAX}
        value={note}
        onChange={(e) => setNote(e.target.value)}
        placeholder="Why not, or what to do instead"
        autoFocus
      />
      <button type="submit" disabled={disabled || !note.trim()}>
        Send denial
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
