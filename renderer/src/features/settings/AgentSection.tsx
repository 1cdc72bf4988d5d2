import type { AgentKindInfo, SecretSummary } from '../../../../shared/contract';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { CredentialPicker } from './CredentialPicker';
import { SettingsSection } from './SettingsSection';
import { useSecrets } from './use-vault';

const agentKey = opKey('agent.get');

/** Every agent kind in the workspaces: its pinned CLI, its default credential, its model endpoint; the start mode. */
export function AgentSection() {
  // Kept live by `agent.changed` events (api/live-updates.ts).
  const agent = useOpQuery('agent.get', {});
  const secrets = useSecrets();
  const a = agent.data;
  return (
    <SettingsSection id="agent" title="Agent">
      <ErrorBanner error={agent.error} />
      <dl className="facts">
        <dt>Permission mode</dt>
        <dd data-testid="agent-permission-mode">{a ? `${a.permissionMode} — ${a.permissionModeReason}` : '…'}</dd>
      </dl>
      {(a?.kinds ?? []).map((k) => (
        <AgentKindSettings key={k.kind} kind={k} secrets={secrets.data?.secrets ?? []} />
      ))}
    </SettingsSection>
  );
}

/** One kind: what runs, where its model is, and the vault secret its sessions sign in with. */
function AgentKindSettings({ kind: k, secrets }: { kind: AgentKindInfo; secrets: SecretSummary[] }) {
  const choose = useOperation('agent.setDefaultCredential', [agentKey]);
  const credentials = secrets.filter((s) => k.credentialKinds.includes(s.kind));
  return (
    <section className="agent-kind" data-agent-kind={k.kind} aria-label={k.label}>
      <h3>{k.label}</h3>
      <dl className="facts">
        <dt>CLI</dt>
        <dd>{`${k.cli.package} ${k.cli.version} (pinned; never updated in a worker)`}</dd>
        <dt>Model endpoint</dt>
        <dd>{k.baseUrl ? <code>{k.baseUrl}</code> : "the provider's API"}</dd>
      </dl>
      <CredentialPicker
        id={`agent-credential-${k.kind}`}
        label={`${k.label} credential`}
        none={`None — ${k.label} sessions cannot start`}
        value={k.defaultCredentialId}
        disabled={choose.isPending}
        secrets={credentials}
        describe={(s) => s.kind.replace(/_/g, ' ')}
        onChange={(secretId) => choose.mutate({ kind: k.kind, secretId })}
      />
      {credentials.length === 0 ? (
        <p className="muted">
          Add one under Secrets ({k.credentialKinds.map((c) => c.replace(/_/g, ' ')).join(' or ')}). A workspace gets it
          when it is created or started.
        </p>
      ) : null}
      <ErrorBanner error={choose.error} />
    </section>
  );
}
