import { useState, type FormEvent } from 'react';
import { useVaultOp } from './use-vault';

/**
 * The app-wide banner of a sealed vault (a passphrase vault after a start of Nexus, or a key-file
 * vault whose key file was refused): the reason core gave, and where no keychain or key file can
 * open it, the passphrase field right there.
 */
export function SealedVaultBanner({ reason, withPassphrase }: { reason: string; withPassphrase: boolean }) {
  const [pass, setPass] = useState('');
  const unlock = useVaultOp('vault.unlock', () => setPass(''));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (pass) unlock.mutate({ passphrase: pass });
  };
  return (
    <div role="alert" className="banner warn sealed-banner" data-testid="banner-vault">
      <p>
        The vault is sealed — creating or starting workspaces needs it.{' '}
        {withPassphrase ? 'Enter its passphrase here, or run `nexus unlock` where Nexus runs.' : reason}
      </p>
      {withPassphrase ? (
        <form className="sealed-unlock" onSubmit={submit} aria-label="Unseal the vault">
          <label htmlFor="sealed-vault-passphrase">Vault passphrase</label>
          <input
            id="sealed-vault-passphrase"
            type="password"
            autoComplete="current-password"
            value={pass}
            onChange={(e) => setPass(e.target.value)}
          />
          <button type="submit" className="primary" disabled={unlock.isPending || !pass}>
            {unlock.isPending ? 'Unlocking…' : 'Unlock'}
          </button>
          {unlock.error ? (
            <span className="sealed-error" role="status">
              {unlock.error.message}
            </span>
          ) : null}
        </form>
      ) : null}
    </div>
  );
}
