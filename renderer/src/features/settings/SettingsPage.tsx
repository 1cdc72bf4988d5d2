import { Page } from '../../shell/Page';
import { useAppInfo } from '../../shell/use-app-info';

export function SettingsPage() {
  const info = useAppInfo();
  return (
    <Page title="Settings">
      <dl className="facts">
        <dt>Version</dt>
        <dd>{info.data?.version ?? '…'}</dd>
        <dt>Data directory</dt>
        <dd>
          <code>{info.data?.dataDir ?? '…'}</code>
        </dd>
      </dl>
    </Page>
  );
}
