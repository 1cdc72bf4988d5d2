import { useState } from 'react';
import type { TokenClass } from '../../../../shared/contract';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';
import { useAccessOp, useConnectInfo } from './use-tokens';

/**
 * Connect Claude Desktop (writes its config entry; the token is kept in the OS keychain, or a 0600 file without
 * one) and the Claude Code line.
 */
export function ConnectSection() {
  const info = useConnectInfo();
  const [cls, setCls] = useState<TokenClass>('write');
  const connect = useAccessOp('connect.claudeDesktop');
  const data = info.data;
  return (
    <SettingsSection id="connect" title="Connect">
      <ErrorBanner error={info.error} />
      <h3>Claude Desktop</h3>
      <p className="muted">
        Adds a “nexus” server to Claude Desktop’s config ({data ? <code>{data.claudeDesktop.configPath}</code> : '…'}),
        keeping every other entry and a backup of the file. The token is never in that file: it stays in the OS
        keychain, or where there is none in a file only you can read in Nexus’s data dir. Restart Claude Desktop
        afterwards.
      </p>
      {data?.claudeDesktop.connected ? (
        <p data-testid="claude-desktop-connected">Claude Desktop is connected.</p>
      ) : null}
      <div className="secret-row">
        <label htmlFor="connect-class">Claude Desktop may</label>
        <select id="connect-class" value={cls} onChange={(e) => setCls(e.target.value as TokenClass)}>
          <option value="read">read</option>
          <option value="write">read and write</option>
          <option value="vault">read, write and create/start workspaces</option>
        </select>
        <button
          type="button"
          className="primary"
          disabled={connect.isPending}
          onClick={() => connect.mutate({ class: cls })}
        >
          {connect.isPending ? 'Connecting…' : 'Connect Claude Desktop'}
        </button>
      </div>
      <ErrorBanner error={connect.error} />
      {connect.data ? (
        <p role="status" data-testid="connect-result">
          {connect.data.changed ? 'Config written' : 'Config already up to date'}
          {connect.data.backupPath ? (
            <>
              {' '}
              (backup: <code>{connect.data.backupPath}</code>)
            </>
          ) : null}
          ; token {connect.data.token.hint} ({connect.data.token.class})
          {connect.data.newToken ? ', new' : ', unchanged'}.
        </p>
      ) : null}
      <h3>Claude Code</h3>
      <p className="muted">Create a token under Access, then run:</p>
      <pre className="command" data-testid="claude-code-command">
        {data?.claudeCodeCommand ?? 'The MCP endpoint is not served by this window (start `nexus serve`).'}
      </pre>
      {data?.mcpUrl ? (
        <p className="muted">
          Any MCP client: Streamable HTTP at <code>{data.mcpUrl}</code> with{' '}
          <code>Authorization: Bearer &lt;token&gt;</code>.
        </p>
      ) : null}
    </SettingsSection>
  );
}
