import { useState, type FormEvent } from 'react';
import { useVaultOp } from './use-vault';

/**
 * An unlock with the passphrase (Settings → Vault, the sealed-vault banner): the field's text, and
 * `vault.unlock` with it on submit; the field is cleared once the vault opens.
 */
export function usePassphraseUnlock() {
  const [pass, setPass] = useState('');
  const unlock = useVaultOp('vault.unlock', () => setPass(''));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (pass) unlock.mutate({ passphrase: pass });
  };
  return { pass, setPass, unlock, submit };
}

/** A passphrase the vault already has (to unlock it, or to prove it before changing it). */
export function CurrentPassphraseField(props: { id: string; label: string; value: string; onValue(v: string): void }) {
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="password"
        autoComplete="current-password"
        value={props.value}
        onChange={(e) => props.onValue(e.target.value)}
      />
    </>
  );
}

/** The submit button of a passphrase unlock: off while it runs or while the field is empty. */
export function UnlockButton({ pending, pass }: { pending: boolean; pass: string }) {
  return (
    <button type="submit" className="primary" disabled={pending || !pass}>
      {pending ? 'Unlocking…' : 'Unlock'}
    </button>
  );
}
