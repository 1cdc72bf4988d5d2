import { useId } from 'react';
import { Passphrase } from '../../../../shared/contract/vault';

/**
 * A new passphrase and its confirmation; `problem` says what is wrong before anything is sent, the
 * length rule in the contract's own words (`Passphrase` in shared/contract/vault.ts).
 */
export function passphraseProblem(value: string, confirm: string, optional: boolean): string | null {
  if (optional && value === '' && confirm === '') return null;
  const parsed = Passphrase.safeParse(value);
  if (!parsed.success) return `Passphrase: ${parsed.error.issues[0]?.message ?? 'not valid'}.`;
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
