import { useId } from 'react';

export const MIN_PASSPHRASE = 8;

/** A new passphrase and its confirmation; `problem` says what is wrong before anything is sent. */
export function passphraseProblem(value: string, confirm: string, optional: boolean): string | null {
  if (optional && value === '' && confirm === '') return null;
  if (value.length < MIN_PASSPHRASE) return `Use at least ${MIN_PASSPHRASE} characters for the passphrase.`;
  if (value !== confirm) return 'The two passphrases do not match.';
  return null;
}

export function PassphraseFields(props: {
  label: string;
  value: string;
  confirm: string;
  onValue(v: string): void;
  onConfirm(v: string): void;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={`${id}-new`}>{props.label}</label>
      <input
        id={`${id}-new`}
        type="password"
        autoComplete="new-password"
        value={props.value}
        onChange={(e) => props.onValue(e.target.value)}
      />
      <label htmlFor={`${id}-confirm`}>Confirm {props.label.toLowerCase()}</label>
      <input
        id={`${id}-confirm`}
        type="password"
        autoComplete="new-password"
        value={props.confirm}
        onChange={(e) => props.onConfirm(e.target.value)}
      />
    </>
  );
}
