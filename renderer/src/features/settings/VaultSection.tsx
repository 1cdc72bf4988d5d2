import { useState, type FormEvent } from 'react';
import type { VaultMode, VaultStatus } from '../../../../shared/contract';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';
import { PassphraseFields, passphraseProblem } from './PassphraseFields';
import { CurrentPassphraseField, UnlockButton, usePassphraseUnlock } from './PassphraseUnlock';
import { useVaultOp, useVaultStatus } from './use-vault';

const tone = { unlocked: 'ok', locked: 'warn', uninitialized: 'warn' } as const;

export function VaultSection() {
  const status = useVaultStatus();
  return (
    <SettingsSection id="vault" title="Vault">
      {status.isPending ? <p>Loading…</p> : null}
      <ErrorBanner error={status.error} />
      {status.data ? <VaultState status={status.data} /> : null}
      {status.data?.state === 'uninitialized' ? <InitForm status={status.data} /> : null}
      {status.data?.state === 'locked' ? <UnlockForm status={status.data} /> : null}
      {status.data?.state === 'unlocked' ? <UnlockedActions status={status.data} /> : null}
    </SettingsSection>
  );
}

function VaultState({ status }: { status: VaultStatus }) {
  return (
    <div className="vault-state">
      <p>
        State:{' '}
        <strong className={`tone-${tone[status.state]}`} data-testid="vault-state">
          {status.state}
        </strong>
      </p>
      <p className="muted" data-testid="vault-reason">
        {status.reason}
      </p>
      {status.mode ? (
        <p>
          Opens with: <strong data-testid="vault-mode">{modeLabel[status.mode]}</strong>
          {status.mode === 'key_file' && status.keyFile ? <span className="muted"> ({status.keyFile})</span> : null}
        </p>
      ) : null}
      {status.keyTerm !== null ? (
        <p className="muted">
          Key term {status.keyTerm} · held by{' '}
          {status.principals.map((p) => (
            <span key={p.id} className="chip" title={p.id}>
              {p.kind}
            </span>
          ))}
        </p>
      ) : null}
    </div>
  );
}

const modeLabel: Record<VaultMode, string> = {
  keychain: 'the OS keychain',
  passphrase: 'a passphrase (sealed at every start)',
  key_file: 'a key file',
};

/** Where set-up keeps the key: the configured key file, else the OS keychain, else (unreachable) a passphrase. */
function InitForm({ status }: { status: VaultStatus }) {
  const withPassphrase = !status.keyFile && status.keychainReachable === false;
  const [pass, setPass] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const init = useVaultOp('vault.init', () => {
    setPass('');
    setConfirm('');
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const p = passphraseProblem(pass, confirm, !withPassphrase);
    setProblem(p);
    if (!p) init.mutate(withPassphrase ? { passphrase: pass } : pass ? { recoveryPassphrase: pass } : {});
  };
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Set up the vault">
      <p className="form-note">
        {status.keyFile
          ? `The vault key is taken from the key file ${status.keyFile}, so Nexus unlocks it by itself at every start. A recovery passphrase (optional, recommended) unlocks it when the file is missing.`
          : withPassphrase
            ? 'No OS keychain is reachable here, so the vault opens with a passphrase. It is sealed at every start of Nexus until you unlock it here, in the banner, or with `nexus unlock`. Nexus cannot recover a forgotten passphrase.'
            : 'The vault key is kept in the OS keychain. A recovery passphrase (optional, recommended) unlocks the vault when the keychain is not available.'}
      </p>
      <PassphraseFields
        label={withPassphrase ? 'Vault passphrase' : 'Recovery passphrase'}
        value={pass}
        confirm={confirm}
        onValue={setPass}
        onConfirm={setConfirm}
      />
      <ErrorBanner error={problem} />
      <ErrorBanner error={init.error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={init.isPending}>
          {init.isPending ? 'Setting up…' : 'Set up vault'}
        </button>
      </div>
    </form>
  );
}

function UnlockForm({ status }: { status: VaultStatus }) {
  const { mode } = status;
  const hasRecovery = status.hasRecoveryPassphrase || mode === 'passphrase';
  const label = mode === 'passphrase' ? 'Vault passphrase' : 'Recovery passphrase';
  const { pass, setPass, unlock, submit } = usePassphraseUnlock();
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Unlock the vault">
      {hasRecovery ? (
        <CurrentPassphraseField id="vault-unlock-passphrase" label={label} value={pass} onValue={setPass} />
      ) : (
        <p className="form-note">
          No recovery passphrase was set: the vault opens only through{' '}
          {mode === 'key_file' ? 'its key file' : 'the OS keychain'}.
        </p>
      )}
      <ErrorBanner error={unlock.error} />
      <div className="form-actions">
        {hasRecovery ? <UnlockButton pending={unlock.isPending} pass={pass} /> : null}
        {mode !== 'passphrase' ? (
          <button type="button" disabled={unlock.isPending} onClick={() => unlock.mutate({})}>
            {mode === 'key_file' ? 'Try the key file again' : 'Try the keychain again'}
          </button>
        ) : null}
      </div>
    </form>
  );
}

function UnlockedActions({ status }: { status: VaultStatus }) {
  const lock = useVaultOp('vault.lock');
  return (
    <>
      <div className="form-actions">
        <button type="button" disabled={lock.isPending} onClick={() => lock.mutate({})}>
          {lock.isPending ? 'Locking…' : 'Lock vault'}
        </button>
      </div>
      <ErrorBanner error={lock.error} />
      <ChangePassphraseForm
        hasRecovery={status.hasRecoveryPassphrase || status.mode === 'passphrase'}
        vaultPassphrase={status.mode === 'passphrase'}
      />
    </>
  );
}

/** The recovery passphrase; for a passphrase vault, the vault passphrase itself. */
function ChangePassphraseForm({ hasRecovery, vaultPassphrase }: { hasRecovery: boolean; vaultPassphrase: boolean }) {
  const [current, setCurrent] = useState('');
  const [pass, setPass] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const change = useVaultOp('vault.changePassphrase', () => {
    setCurrent('');
    setPass('');
    setConfirm('');
    setDone(true);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    const p = hasRecovery && !current ? 'Enter the current passphrase.' : passphraseProblem(pass, confirm, false);
    setProblem(p);
    if (!p) change.mutate(hasRecovery ? { currentPassphrase: current, newPassphrase: pass } : { newPassphrase: pass });
  };
  const title = vaultPassphrase
    ? 'Change the vault passphrase'
    : hasRecovery
      ? 'Change recovery passphrase'
      : 'Set a recovery passphrase';
  return (
    <form className="form-grid" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      {hasRecovery ? (
        <CurrentPassphraseField
          id="vault-current-passphrase"
          label="Current passphrase"
          value={current}
          onValue={setCurrent}
        />
      ) : null}
      <PassphraseFields
        label="New passphrase"
        value={pass}
        confirm={confirm}
        onValue={setPass}
        onConfirm={setConfirm}
      />
      <ErrorBanner error={problem} />
      <ErrorBanner error={change.error} />
      {done ? <p role="status">{vaultPassphrase ? 'Vault passphrase saved.' : 'Recovery passphrase saved.'}</p> : null}
      <div className="form-actions">
        <button type="submit" disabled={change.isPending}>
          {change.isPending ? 'Saving…' : title}
        </button>
      </div>
    </form>
  );
}
