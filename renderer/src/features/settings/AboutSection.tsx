import { useAppInfo } from '../../shell/use-app-info';
import { SettingsSection } from './SettingsSection';

export function AboutSection() {
  const info = useAppInfo();
  return (
    <SettingsSection id="about" title="About">
      <dl className="facts">
        <dt>Version</dt>
        <dd>{info.data?.version ?? '…'}</dd>
        <dt>Agent CLI</dt>
        <dd data-testid="agent-cli-version">
          {info.data ? `${info.data.agentCli.package} ${info.data.agentCli.version}` : '…'}
        </dd>
        <dt>Codex CLI</dt>
        <dd data-testid="codex-cli-version">
          {info.data
            ? `${info.data.codexCli.package} ${info.data.codexCli.version}${info.data.codexCli.source ? '' : ' (not installed)'}`
            : '…'}
        </dd>
        <dt>Data directory</dt>
        <dd>
          <code>{info.data?.dataDir ?? '…'}</code>
        </dd>
      </dl>
    </SettingsSection>
  );
}
