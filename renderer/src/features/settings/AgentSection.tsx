import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { CredentialPicker } from './CredentialPicker';
import { SettingsSection } from './SettingsSection';
import { useSecrets } from './use-vault';

const agentKey = opKey('agent.get');
const AGENT_KINDS = ['anthropic_api_key', 'claude_oauth_token'];

/** The agent in every workspace: pinned CLI, the default credential, the model endpoint and the start mode. */
export function AgentSection() {
  // Kept live by `agent.changed` events (api/live-updates.ts).
  const agent = useOpQuery('agent.get', {});
  const secrets = useSecrets();
  const choose = useOperation('agent.setDefaultCredential', [agentKey]);
  const chooseCodex = useOperation('agent.setDefaultCodexCredential', [agentKey]);
  const openaiKeys = (secrets.data?.secrets ?? []).filter((s) => s.kind === 'openai_api_key');
  const credentials = (secrets.data?.secrets ?? []).filter((s) => AGENT_KINDS.includes(s.kind));
  const a = agent.data;
  return (
    <SettingsSection id="agent" title="Agent">
      <ErrorBanner error={agent.error} />
      <dl className="facts">
        <dt>CLI</dt>
        <dd>{a ? `${a.cli.package} ${a.cli.version} (pinned; auto-update off in workers)` : '…'}</dd>
        <dt>Codex CLI</dt>
        <dd>{a?.codexCli ? `${a.codexCli.package} ${a.codexCli.version} (pinned)` : '…'}</dd>
        <dt>Model endpoint</dt>
        <dd>{a ? a.baseUrl ? <code>{a.baseUrl}</code> : "Anthropic's API" : '…'}</dd>
        <dt>Permission mode</dt>
        <dd data-testid="agent-permission-mode">{a ? `${a.permissionMode} — ${a.permissionModeReason}` : '…'}</dd>
      </dl>
      <CredentialPicker
        id="agent-credential"
        label="Default credential"
        none="None — sessions cannot start"
        value={a?.defaultCredentialId}
        disabled={!a || choose.isPending}
        secrets={credentials}
        describe={(s) => (s.kind === 'anthropic_api_key' ? 'API key' : 'OAuth token')}
        onChange={(secretId) => choose.mutate({ secretId })}
      />
      {credentials.length === 0 ? (
        <p className="muted">
          Add an Anthropic API key, or the token <code>claude setup-token</code> prints, under Secrets. A workspace gets
          it when it is created or started.
        </p>
      ) : null}
      <ErrorBanner error={choose.error} />
      <CredentialPicker
        id="codex-credential"
        label="Codex credential"
        none="None — Codex sessions cannot start"
        value={a?.defaultCodexCredentialId}
        disabled={!a || chooseCodex.isPending}
        secrets={openaiKeys}
        describe={() => 'OpenAI API key'}
        onChange={(secretId) => chooseCodex.mutate({ secretId })}
      />
      <ErrorBanner error={chooseCodex.error} />
    </SettingsSection>
  );
}
