import { useState } from 'react';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { opKey } from '../../api/query-keys';

/**
 * A confined workspace's egress (docs/security.md, "Egress by allow-list"): the hosts its proxy lets it reach, editable
 * one per line, and what the proxy refused it, newest first. An open workspace shows nothing.
 */
export function EgressPanel({ workspaceId }: { workspaceId: string }) {
  const rule = useOpQuery('egress.get', { workspace: workspaceId }, { retry: false });
  const refusals = useOpQuery(
    'egress.refusals',
    { workspace: workspaceId, limit: 20 },
    { retry: false, enabled: rule.data?.confined === true, refetchInterval: 10_000 },
  );
  const [draft, setDraft] = useState<string | null>(null);
  const save = useOperation('egress.setHosts', [opKey('egress.get', { workspace: workspaceId })], () => setDraft(null));
  // An open workspace (the default) has nothing to show: the workers' network, as before.
  if (!rule.data?.confined) return null;
  const text = draft ?? rule.data.hosts.join('\n');
  const hosts = (t: string) =>
    t
      .split('\n')
      .map((h) => h.trim())
      .filter(Boolean);
  return (
    <section className="workspace-egress" data-testid="workspace-egress" aria-label="Egress allow-list">
      <label className="field">
        Egress allow-list {rule.data.custom ? '' : '(the defaults)'}
        <textarea rows={4} value={text} onChange={(e) => setDraft(e.target.value)} aria-label="Allowed hosts" />
        <small>One per line: host, host:port, *.domain or an IP address. Only these are reachable through Nexus.</small>
      </label>
      <button
        type="button"
        disabled={draft === null || save.isPending}
        onClick={() => save.mutate({ workspace: workspaceId, hosts: hosts(text) })}
      >
        Save
      </button>
      {rule.data.custom ? (
        <button
          type="button"
          disabled={save.isPending}
          onClick={() => save.mutate({ workspace: workspaceId, hosts: null })}
        >
          Back to the defaults
        </button>
      ) : null}
      {save.error ? <p className="error">{save.error.message}</p> : null}
      <h4>Refused</h4>
      {refusals.data?.refusals.length ? (
        <ul data-testid="egress-refusals">
          {refusals.data.refusals.map((r, i) => (
            <li key={`${r.at}-${i}`} title={r.reason}>
              {new Date(r.at).toLocaleTimeString()} {r.method} {r.host}:{r.port}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing refused.</p>
      )}
    </section>
  );
}
