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
        <AgentKindSettings
          key={k.kind}
          kind={k}
          labels={new Map((a?.credentials ?? []).map((c) => [c.kind, c.label]))}
          secrets={secrets.data?.secrets ?? []}
        />
      ))}
    </SettingsSection>
  );
}

/** One kind: what runs, where its model is, and the vault secret its sessions sign in with. */
function AgentKindSettings(props: {
  kind: AgentKindInfo;
  /** Each credential kind's label (agent.get's credentials). */
  labels: ReadonlyMap<string, string>;
  secrets: SecretSummary[];
}) {
  const { kind: k, labels } = props;
  const choose = useOperation('agent.setDefaultCredential', [agentKey]);
  const credentials = props.secrets.filter((s) => k.credentialKinds.includes(s.kind));
  const label = (kind: string) => labels.get(kind) ?? kind;
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
        describe={(s) => label(s.kind)}
        onChange={(secretId) => choose.mutate({ kind: k.kind, secretId })}
      />
      {credentials.length === 0 ? (
        <p className="muted">
          Add one under Secrets ({k.credentialKinds.map(label).join(' or ')}). A workspace gets it when it is created or
          started.
        </p>
      ) : null}
      <ErrorBanner error={choose.error} />
    </section>
  );
}
