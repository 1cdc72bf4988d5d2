import type { DelegationAccess } from '../../../../shared/contract';
import { Banner } from '../../shell/ErrorBanner';

/** The delegated credential choice: what the workspace's sessions may do with Nexus's own MCP server. */
export function DelegationField({
  access,
  allWorkspaces,
  onChange,
}: {
  access: DelegationAccess;
  allWorkspaces: boolean;
  onChange: (access: DelegationAccess, allWorkspaces: boolean) => void;
}) {
  return (
    <>
      <label className="field">
        Delegation
        <select value={access} onChange={(e) => onChange(e.target.value as DelegationAccess, allWorkspaces)}>
          <option value="none">None: its sessions get no Nexus server</option>
          <option value="read">Read: list and inspect sessions, get_nexus_info</option>
          <option value="write">Write: also create, message and delete sessions</option>
          <option value="vault">Vault: also create and start workspaces, push branches</option>
        </select>
        <small>
          Sessions get Nexus&apos;s MCP server as <code>nexus-delegated</code> with a token of this class (Settings →
          Access lists it).
        </small>
      </label>
      {access === 'vault' ? (
        <Banner tone="warn">
          A vault credential lets an agent in this workspace open the vault&apos;s data key: it can create and start
          workspaces with your secrets and push with your provider tokens. Choose it only for a workspace you trust.
        </Banner>
      ) : null}
      {access !== 'none' ? (
        <label className="field">
          <input type="checkbox" checked={allWorkspaces} onChange={(e) => onChange(access, e.target.checked)} />
          Also act on other workspaces
          <small>By default the credential acts only on this workspace and its sessions.</small>
        </label>
      ) : null}
    </>
  );
}
