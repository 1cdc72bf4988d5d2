import { CurrentPassphraseField, UnlockButton, usePassphraseUnlock } from './PassphraseUnlock';

/**
 * The app-wide banner of a sealed vault (a passphrase vault after a start of Nexus, or a key-file
 * vault whose key file was refused): the reason core gave, and where no keychain or key file can
 * open it, the passphrase field right there.
 */
export function SealedVaultBanner({ reason, withPassphrase }: { reason: string; withPassphrase: boolean }) {
  const { pass, setPass, unlock, submit } = usePassphraseUnlock();
  return (
    <div role="alert" className="banner warn sealed-banner" data-testid="banner-vault">
      <p>
        The vault is sealed — creating or starting workspaces needs it.{' '}
        {withPassphrase ? 'Enter its passphrase here, or run `nexus unlock` where Nexus runs.' : reason}
      </p>
      {withPassphrase ? (
        <form className="sealed-unlock" onSubmit={submit} aria-label="Unseal the vault">
          <CurrentPassphraseField
            id="sealed-vault-passphrase"
            label="Vault passphrase"
            value={pass}
            onValue={setPass}
          />
          <UnlockButton pending={unlock.isPending} pass={pass} />
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
