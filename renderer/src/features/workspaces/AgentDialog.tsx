import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { AgentKind, Workspace } from '../../../../shared/contract';
import { allPermissions, permissionLabels, type AgentPermission } from '../../../../shared/platform-gating';
import { toolNames } from '../../../../shared/platform-tools';
import { useApi } from '../../api/context';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { FormDialog } from '../../shell/FormDialog';
import { AgentKindSelect } from '../sessions/AgentKindSelect';
import { McpServersField, parseMcpServers } from './McpServersField';

/**
 * Edits a workspace's agent record: the agent kind its new sessions run unless they pick one, which platform tools its sessions are offered (the allow-list;
 * none ticked = every tool whose check passes), its permissions, external MCP servers and auto-start.
 * Running sessions follow the allow-list and permissions at once; MCP servers apply from the next launch.
 */
export function AgentDialog({ workspace: w, onClose }: { workspace: Workspace; onClose: () => void }) {
  const api = useApi();
  const client = useQueryClient();
  const key = opKey('agents.forWorkspace', { workspace: w.id });
  const agent = useOpQuery('agents.forWorkspace', { workspace: w.id });
  const [tools, setTools] = useState<string[]>([]);
  const [permissions, setPermissions] = useState<AgentPermission[]>([]);
  const [servers, setServers] = useState('[]');
  const [autoStart, setAutoStart] = useState(false);
  const [maxAuto, setMaxAuto] = useState(1);
  const [kind, setKind] = useState<AgentKind>(w.defaultAgent);
  const a = agent.data;
  useEffect(() => {
    if (!a) return;
    setTools(a.tools);
    setPermissions(a.permissions);
    setServers(JSON.stringify(a.mcpServers, null, 2));
    setAutoStart(a.autoStart);
    setMaxAuto(a.maxAutoSessions);
  }, [a]);
  const parsed = parseMcpServers(servers);
  const save = useMutation({
    mutationFn: async () => {
      await api['agents.update']({
        id: a?.id ?? '',
        tools,
        permissions,
        mcpServers: 'servers' in parsed ? parsed.servers : [],
        autoStart,
        maxAutoSessions: maxAuto,
      });
      if (kind !== w.defaultAgent) await api['sessions.setDefaultAgent']({ workspace: w.id, agent: kind });
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: key });
      onClose();
    },
  });
  const toggle = <T extends string>(list: T[], item: T, on: boolean): T[] =>
    on ? [...new Set([...list, item])] : list.filter((x) => x !== item);
  return (
    <FormDialog
      title={<>Agent of {w.name}</>}
      onSubmit={() => save.mutate()}
      onCancel={onClose}
      pending={save.isPending}
      error={agent.error ?? save.error}
      action="Save"
      pendingAction="Saving…"
      ready={Boolean(a) && !('error' in parsed)}
    >
      <label className="field">
        Default agent
        <AgentKindSelect value={kind} onChange={(k) => setKind(k || kind)} name="defaultAgent" />
        <small>What its new sessions run unless they pick another; running sessions keep theirs.</small>
      </label>
      <fieldset>
        <legend>Platform tools offered (none ticked: every tool whose check passes)</legend>
        {toolNames.map((t) => (
          <label key={t} style={{ display: 'block' }}>
            <input
              type="checkbox"
              checked={tools.includes(t)}
              onChange={(e) => setTools(toggle(tools, t, e.target.checked))}
            />{' '}
            {t}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Permissions</legend>
        {allPermissions.map((p) => (
          <label key={p} style={{ display: 'block' }}>
            <input
              type="checkbox"
              checked={permissions.includes(p)}
              onChange={(e) => setPermissions(toggle(permissions, p, e.target.checked))}
            />{' '}
            {permissionLabels[p]}
          </label>
        ))}
      </fieldset>
      <McpServersField value={servers} onChange={setServers} problem={'error' in parsed ? parsed.error : null} />
      <fieldset>
        <legend>Delegated tasks</legend>
        <label style={{ display: 'block' }}>
          <input type="checkbox" checked={autoStart} onChange={(e) => setAutoStart(e.target.checked)} /> Start a session
          on each task delegated in this workspace
        </label>
        <label>
          At most{' '}
          <input
            type="number"
            min={1}
            max={20}
            value={maxAuto}
            onChange={(e) => setMaxAuto(Number(e.target.value) || 1)}
            aria-label="Most auto-started sessions at once"
          />{' '}
          at once
        </label>
      </fieldset>
    </FormDialog>
  );
}
