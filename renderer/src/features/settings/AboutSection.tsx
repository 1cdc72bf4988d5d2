import { Fragment } from 'react';
import { useAppInfo } from '../../shell/use-app-info';
import { SettingsSection } from './SettingsSection';

export function AboutSection() {
  const info = useAppInfo();
  return (
    <SettingsSection id="about" title="About">
      <dl className="facts">
        <dt>Version</dt>
        <dd>{info.data?.version ?? '…'}</dd>
        {(info.data?.agentClis ?? []).map(({ kind, label, cli }) => (
          <Fragment key={kind}>
            <dt>{label}</dt>
            <dd data-testid={`agent-cli-version-${kind}`}>
              {`${cli.package} ${cli.version}${cli.source ? '' : ' (not installed yet)'}`}
            </dd>
          </Fragment>
        ))}
        <dt>Data directory</dt>
        <dd>
          <code>{info.data?.dataDir ?? '…'}</code>
        </dd>
      </dl>
    </SettingsSection>
  );
}
