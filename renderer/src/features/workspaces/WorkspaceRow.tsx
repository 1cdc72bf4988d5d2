import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { Delegation, Progress, Workspace } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { ConfirmDialog } from '../../shell/ConfirmDialog';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { AgentDialog } from './AgentDialog';
import { DiskUse } from './DiskUse';
import { EgressPanel } from './EgressPanel';
import { EngineTag } from '../engines/EngineField';
import { DelegationDialog } from './DelegationDialog';
import { useAgentLabel } from '../sessions/agent-label';

const tone: Record<Workspace['status'], string> = {
  running: 'ok',
  creating: 'warn',
  stopped: 'muted',
  error: 'bad',
  missing: 'bad',
};

/** One workspace: status chip, delegation, live progress while it is being created, start/stop/delete. */
export function WorkspaceRow({
  workspace: w,
  progress,
  delegation,
}: {
  workspace: Workspace;
  progress?: Progress;
  /** Its active delegated credential, if any. */
  delegation?: Delegation | undefined;
}) {
  const api = useApi();
  const agentLabel = useAgentLabel();
  const [confirming, setConfirming] = useState<'stop' | 'delete' | 'delegation' | 'agent' | null>(null);
  const start = useMutation({ mutationFn: () => api['workspaces.start']({ workspace: w.id }) });
  const stop = useMutation({
    mutationFn: () => api['workspaces.stop']({ workspace: w.id }),
    onSuccess: () => setConfirming(null),
  });
  const remove = useMutation({
    mutationFn: () => api['workspaces.delete']({ workspace: w.id }),
    onSuccess: () => setConfirming(null),
  });
  const busy = start.isPending || stop.isPending || remove.isPending;
  const error = start.error ?? stop.error ?? remove.error;
  return (
    <li className="workspace" data-testid={`workspace-${w.name}`} aria-label={`Workspace ${w.name}`}>
      <div className="workspace-head">
        <strong>{w.name}</strong>
        <span className={`chip chip-${tone[w.status]}`} data-testid="workspace-status">
          {w.status}
        </span>
        <EngineTag engine={w.engine} />
        <span className="chip" data-testid="workspace-agent" title="What its sessions run unless they pick another">
          agent: {agentLabel(w.defaultAgent)}
        </span>
        {delegation ? (
          <span
            className="chip"
            data-testid="workspace-delegation"
            title="Its sessions get Nexus's MCP server (nexus-delegated)"
          >
            delegated: {delegation.class}
            {delegation.allWorkspaces ? ', all workspaces' : ''}
          </span>
        ) : null}
        <span className="workspace-repo">{w.repoUrl}</span>
        {w.status === 'running' ? <DiskUse workspaceId={w.id} /> : null}
        <span className="workspace-actions">
          {w.status === 'stopped' || w.status === 'error' ? (
            <button type="button" onClick={() => start.mutate()} disabled={busy || !w.containerId}>
              Start
            </button>
          ) : null}
          {w.status === 'running' ? (
            <button type="button" onClick={() => setConfirming('stop')} disabled={busy}>
              Stop
            </button>
          ) : null}
          <button type="button" onClick={() => setConfirming('agent')} disabled={busy}>
            Agent
          </button>
          <button type="button" onClick={() => setConfirming('delegation')} disabled={busy}>
            Delegation
          </button>
          <button type="button" className="danger" onClick={() => setConfirming('delete')} disabled={busy}>
            Delete
          </button>
        </span>
      </div>
      {w.status === 'creating' && progress && !progress.done ? (
        <div
          className="workspace-progress"
          role="progressbar"
          aria-label={`Creating ${w.name}`}
          aria-valuemin={0}
          aria-valuemax={1}
          aria-valuenow={progress.fraction}
        >
          {progress.step}
          <progress max={1} value={progress.fraction ?? undefined} />
        </div>
      ) : null}
      {w.reason ? <p className="workspace-reason">{w.reason}</p> : null}
      {w.status === 'creating' ? null : <EgressPanel workspaceId={w.id} />}
      <ErrorBanner error={error} />
      {confirming === 'stop' ? (
        <ConfirmDialog
          title={`Stop ${w.name}?`}
          confirmLabel="Stop workspace"
          busy={stop.isPending}
          error={stop.error}
          onCancel={() => setConfirming(null)}
          onConfirm={() => stop.mutate()}
        >
          <p>Its sessions go offline until the workspace is started again. The clone and its volume stay.</p>
        </ConfirmDialog>
      ) : null}
      {confirming === 'agent' ? <AgentDialog workspace={w} onClose={() => setConfirming(null)} /> : null}
      {confirming === 'delegation' ? (
        <DelegationDialog workspace={w} current={delegation} onClose={() => setConfirming(null)} />
      ) : null}
      {confirming === 'delete' ? (
        <ConfirmDialog
          title={`Delete ${w.name}?`}
          confirmLabel="Delete workspace"
          busy={remove.isPending}
          error={remove.error}
          onCancel={() => setConfirming(null)}
          onConfirm={() => remove.mutate()}
        >
          <p>The container, its volume (the clone and any uncommitted work) and the workspace record are removed.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}
