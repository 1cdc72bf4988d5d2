import { useState, type FormEvent } from 'react';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, type TokenClass, type TokenInfo } from '../../../../shared/contract';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';
import { useAccessOp, useTokens } from './use-tokens';
import { RowConfirm } from '../../shell/RowConfirm';

const classes: { value: TokenClass; label: string; what: string }[] = [
  { value: 'read', label: 'Read', what: 'list and inspect workspaces and sessions, Nexus state' },
  { value: 'write', label: 'Write', what: '+ create, delete and message sessions, stop and delete workspaces' },
  { value: 'vault', label: 'Vault', what: '+ create and start workspaces (opens the vault while you are away)' },
];

/** MCP tokens: create one (its secret is shown once, here), see class, expiry and last use, revoke. */
export function AccessSection() {
  const list = useTokens();
  const tokens = list.data?.tokens ?? [];
  return (
    <SettingsSection id="access" title="Access (MCP tokens)">
      <p className="muted">
        MCP clients (Claude Desktop, Claude Code, scripts) use a token of a class. Tokens are stored hashed, expire, and
        are never shown again after creation.
      </p>
      <ErrorBanner error={list.error} />
      {list.data && tokens.length === 0 ? <p className="muted">No tokens yet.</p> : null}
      {tokens.length > 0 ? (
        <ul className="list" aria-label="MCP tokens">
          {tokens.map((t) => (
            <TokenItem key={t.id} token={t} />
          ))}
        </ul>
      ) : null}
      <CreateTokenForm />
    </SettingsSection>
  );
}

function TokenItem({ token }: { token: TokenInfo }) {
  const [confirm, setConfirm] = useState(false);
  const revoke = useAccessOp('tokens.revoke', () => setConfirm(false));
  return (
    <li data-testid="token-item" aria-label={token.name}>
      <div className="secret-row">
        <span className="secret-name">{token.name}</span>
        <span className="chip">{token.class}</span>
        <span className={`chip state-${token.state}`}>{token.state}</span>
        <code className="secret-hint">{token.hint}</code>
        <span className="muted">expires {token.expiresAt.slice(0, 10)}</span>
        <span className="muted">
          last used {token.lastUsedAt ? new Date(token.lastUsedAt).toLocaleString() : 'never'}
        </span>
        {token.state === 'active' ? (
          <RowConfirm
            open={confirm}
            setOpen={setConfirm}
            action="Revoke"
            question={`Revoke “${token.name}”?`}
            confirmLabel={revoke.isPending ? 'Revoking…' : 'Confirm revoke'}
            busy={revoke.isPending}
            onConfirm={() => revoke.mutate({ id: token.id })}
          />
        ) : null}
      </div>
      <ErrorBanner error={revoke.error} />
    </li>
  );
}

function CreateTokenForm() {
  const [name, setName] = useState('');
  const [cls, setCls] = useState<TokenClass>('read');
  const [days, setDays] = useState(DEFAULT_TOKEN_DAYS);
  const [shown, setShown] = useState<{ secret: string; name: string } | null>(null);
  const create = useAccessOp('tokens.create', (r) => {
    setShown({ secret: r.secret, name: r.token.name });
    setName('');
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setShown(null);
    create.mutate({ name, class: cls, expiresInDays: days });
  };
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Create a token">
      <h3>Create a token</h3>
      <label htmlFor="token-name">Name</label>
      <input id="token-name" value={name} placeholder="Claude on my laptop" onChange={(e) => setName(e.target.value)} />
      <label htmlFor="token-class">Class</label>
      <select id="token-class" value={cls} onChange={(e) => setCls(e.target.value as TokenClass)}>
        {classes.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label} — {c.what}
          </option>
        ))}
      </select>
      <label htmlFor="token-days">Expires in (days)</label>
      <input
        id="token-days"
        type="number"
        min={1}
        max={MAX_TOKEN_DAYS}
        value={days}
        onChange={(e) => setDays(Number(e.target.value))}
      />
      <ErrorBanner error={create.error} />
      {shown ? (
        <div className="banner warn" role="status" data-testid="token-once">
          <p>Token for “{shown.name}”. Copy it now: it is shown this once.</p>
          <code className="token-secret" data-testid="token-secret">
            {shown.secret}
          </code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(shown.secret)}>
            Copy
          </button>{' '}
          <button type="button" onClick={() => setShown(null)}>
            Done
          </button>
        </div>
      ) : null}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={create.isPending || !name.trim()}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}
