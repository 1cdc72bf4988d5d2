import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { operations, type AgentKind, type DelegationAccess, type Workspace } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { useOpQuery } from '../../api/use-op-query';
import { FormDialog } from '../../shell/FormDialog';
import { useSchemaForm } from '../../shell/schema-form';
import { useFieldError } from '../../shell/use-field-error';
import { EngineField } from '../engines/EngineField';
import { AgentKindSelect } from '../sessions/AgentKindSelect';
import { DelegationField } from './DelegationField';
import { delegationsKey } from './use-workspaces';

/**
 * Create dialog: name, repository URL, the vault secret holding the provider token (picked from
 * `secrets.list`), its default agent kind (Claude Code or Codex), the agent's credential (default: the one chosen in
 * Settings → Agent), bypassPermissions
 * and the delegated credential (none by default; vault only with a warning).
 */
export function CreateWorkspaceDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (w: Workspace) => void;
}) {
  const api = useApi();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [repoUrl, setRepoUrl] = useState('');
  const [secretId, setSecretId] = useState('');
  const [agentSecretId, setAgentSecretId] = useState('');
  const [bypassPermissions, setBypassPermissions] = useState(false);
  const [confined, setConfined] = useState(false);
  // '': this Nexus's default kind (the registry's first).
  const [defaultAgent, setDefaultAgent] = useState<'' | AgentKind>('');
  const [delegationAccess, setDelegationAccess] = useState<DelegationAccess>('none');
  const [allWorkspaces, setAllWorkspaces] = useState(false);
  const [engine, setEngine] = useState('');
  const secrets = useOpQuery('secrets.list', {}, { retry: false });
  const agent = useOpQuery('agent.get', {}, { retry: false });
  const kinds = agent.data?.kinds ?? [];
  const credentialLabel = new Map((agent.data?.credentials ?? []).map((c) => [c.kind, c.label]));
  const agentCredentials = (secrets.data?.secrets ?? []).filter((s) => credentialLabel.has(s.kind));
  const defaultCredential = agentCredentials.find((s) => s.id === kinds[0]?.defaultCredentialId);
  const input = {
    name: name.trim(),
    repoUrl: repoUrl.trim(),
    ...(secretId.trim() ? { secretId: secretId.trim() } : {}),
    ...(agentSecretId ? { agentSecretId } : {}),
    ...(bypassPermissions ? { bypassPermissions } : {}),
    ...(confined ? { egress: 'allow-list' as const } : {}),
    ...(defaultAgent && defaultAgent !== kinds[0]?.kind ? { defaultAgent } : {}),
    ...(engine ? { engine } : {}),
    ...(delegationAccess !== 'none' ? { delegation: { access: delegationAccess, allWorkspaces } } : {}),
  };
  // The contract's schema judges the form (the name rule lives in shared/contract/workspaces.ts only).
  const form = useSchemaForm(operations['workspaces.create'].input, input);
  const nameHint = useId();
  const nameField = useFieldError(form.errorOf('name'), nameHint);
  const repoField = useFieldError(form.errorOf('repoUrl'));
  const create = useMutation({
    mutationFn: () => api['workspaces.create'](input),
    onSuccess: (w) => {
      // The credential is in place once the create answers (its token event came before its link).
      if (delegationAccess !== 'none') void client.invalidateQueries({ queryKey: delegationsKey });
      onCreated(w);
      onClose();
    },
  });
  return (
    <FormDialog
      title="New workspace"
      onSubmit={() => form.submit() && create.mutate()}
      formRef={form.formRef}
      onCancel={onClose}
      pending={create.isPending}
      error={create.error}
      action="Create"
      pendingAction="Creating…"
    >
      <label className="field">
        Name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="my-project"
          data-autofocus
          {...nameField.input}
        />
        {nameField.message}
        <small id={nameHint}>Lowercase letters, digits and dashes.</small>
      </label>
      <label className="field">
        Repository URL
        <input
          value={repoUrl}
          onChange={(e) => setRepoUrl(e.target.value)}
          inputMode="url"
          placeholder="https://github.com/owner/repo.git"
          {...repoField.input}
        />
        {repoField.message}
      </label>
      <label className="field">
        Secret
        <select value={secretId} onChange={(e) => setSecretId(e.target.value)}>
          <option value="">None (public repository)</option>
          {(secrets.data?.secrets ?? []).map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} ({s.kind}
              {s.host ? `, ${s.host}` : ''}
              {s.last4 ? `, …${s.last4}` : ''})
            </option>
          ))}
        </select>
        <small>
          {secrets.error
            ? `Secrets are unavailable: ${secrets.error.message}`
            : 'The token reaches git inside the container through a credential helper only.'}
        </small>
      </label>
      <EngineField value={engine} onChange={setEngine} />
      <label className="field">
        Default agent
        <AgentKindSelect
          value={defaultAgent || (kinds[0]?.kind ?? '')}
          onChange={setDefaultAgent}
          name="defaultAgent"
        />
        <small>What its sessions run when they are created without picking one.</small>
      </label>
      <label className="field">
        Agent credential
        <select value={agentSecretId} onChange={(e) => setAgentSecretId(e.target.value)}>
          <option value="">
            {defaultCredential
              ? `Default from Settings → Agent (${defaultCredential.name})`
              : 'Default from Settings → Agent (none chosen)'}
          </option>
          {agentCredentials.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} ({credentialLabel.get(s.kind)}
              {s.last4 ? `, …${s.last4}` : ''})
            </option>
          ))}
        </select>
        <small>An agent credential from the vault ({[...credentialLabel.values()].join(', ')}).</small>
      </label>
      <label className="field">
        <input type="checkbox" checked={bypassPermissions} onChange={(e) => setBypassPermissions(e.target.checked)} />
        Run sessions in bypassPermissions
        <small>
          The agent runs every tool without asking; the container is the only boundary. Inbox messages to these sessions
          are held, not delivered.
        </small>
      </label>
      <label className="field">
        <input type="checkbox" checked={confined} onChange={(e) => setConfined(e.target.checked)} />
        Egress by allow-list
        <small>
          Out only through Nexus: the model gateway, and a proxy to the hosts you allow (the git host and npm to start;
          edit them on the workspace). SSH remotes and tools that ignore HTTP_PROXY will not reach the network.
        </small>
      </label>
      <DelegationField
        access={delegationAccess}
        allWorkspaces={allWorkspaces}
        onChange={(a, all) => {
          setDelegationAccess(a);
          setAllWorkspaces(all);
        }}
      />
    </FormDialog>
  );
}
