import { useState, type FormEvent } from 'react';
import type { BoardTask } from '../../../../shared/contract/platform';
import type { TrackerKind, TrackerSettings } from '../../../../shared/contract/tracker';
import type { AgentKind } from '../../../../shared/contract/agent-kind';
import { opKey } from '../../api/query-keys';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { AgentKindSelect } from '../sessions/AgentKindSelect';
import { CredentialPicker } from './CredentialPicker';
import { useSecrets } from './use-vault';

const statuses: { status: BoardTask['status']; label: string }[] = [
  { status: 'planned', label: 'Planned' },
  { status: 'ready_for_agent', label: 'Ready for an agent' },
  { status: 'in_progress', label: 'In progress' },
  { status: 'done', label: 'Done' },
  { status: 'cancelled', label: 'Cancelled' },
];
const kinds: { kind: TrackerKind; label: string; url: string; project: string; status: string }[] = [
  { kind: 'redmine', label: 'Redmine', url: 'https://redmine.example.com', project: 'identifier', status: 'status id' },
  {
    kind: 'github',
    label: 'GitHub Issues',
    url: 'https://api.github.com',
    project: 'owner/repo',
    status: 'open or closed',
  },
];

interface Form {
  kind: TrackerKind;
  url: string;
  project: string;
  secretId: string;
  statusMap: Partial<Record<BoardTask['status'], string>>;
  pickup: boolean;
  label: string;
  assignee: string;
  everySeconds: string;
  agent: '' | AgentKind;
}

const formOf = (s: TrackerSettings | null): Form => ({
  kind: s?.kind ?? 'redmine',
  url: s?.url ?? '',
  project: s?.project ?? '',
  secretId: s?.secretId ?? '',
  statusMap: s?.statusMap ?? {},
  pickup: Boolean(s?.pickup),
  label: s?.pickup?.label ?? '',
  assignee: s?.pickup?.assignee ?? '',
  everySeconds: String(s?.pickup?.everySeconds ?? 300),
  agent: s?.pickup?.agent ?? '',
});

/** One workspace's tracker: kind, address, project, the vault secret, the status mapping and the pick-up rule. */
export function TrackerForm({ workspace, settings }: { workspace: string; settings: TrackerSettings | null }) {
  const [form, setForm] = useState(() => formOf(settings));
  const set = useOperation('tracker.set', [opKey('tracker.get', { workspace })]);
  const secrets = useSecrets();
  const kind = kinds.find((k) => k.kind === form.kind) ?? kinds[0]!;
  const change = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const statusMap = Object.fromEntries(Object.entries(form.statusMap).filter(([, v]) => v?.trim()));
    set.mutate({
      workspace,
      tracker: {
        kind: form.kind,
        url: form.url.trim(),
        project: form.project.trim(),
        secretId: form.secretId,
        statusMap,
        pickup: form.pickup
          ? {
              ...(form.label.trim() ? { label: form.label.trim() } : {}),
              ...(form.assignee.trim() ? { assignee: form.assignee.trim() } : {}),
              everySeconds: Number(form.everySeconds),
              ...(form.agent ? { agent: form.agent } : {}),
            }
          : null,
      },
    });
  };
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Tracker settings">
      <label htmlFor="tracker-kind">Kind</label>
      <select id="tracker-kind" value={form.kind} onChange={(e) => change({ kind: e.target.value as TrackerKind })}>
        {kinds.map((k) => (
          <option key={k.kind} value={k.kind}>
            {k.label}
          </option>
        ))}
      </select>
      <label htmlFor="tracker-url">Address</label>
      <input
        id="tracker-url"
        type="url"
        value={form.url}
        placeholder={kind.url}
        onChange={(e) => change({ url: e.target.value })}
      />
      <label htmlFor="tracker-project">Project</label>
      <input
        id="tracker-project"
        value={form.project}
        placeholder={kind.project}
        onChange={(e) => change({ project: e.target.value })}
      />
      <CredentialPicker
        id="tracker-secret"
        label="Credential"
        none="Choose a vault secret (API key or token)"
        value={form.secretId || null}
        disabled={set.isPending}
        secrets={secrets.data?.secrets ?? []}
        describe={(s) => s.host || s.kind.replace(/_/g, ' ')}
        onChange={(secretId) => change({ secretId: secretId ?? '' })}
      />
      <h3>Status on the tracker ({kind.status}; empty: not mirrored)</h3>
      {statuses.map(({ status, label }) => (
        <StatusField
          key={status}
          status={status}
          label={label}
          placeholder={kind.status}
          value={form.statusMap[status] ?? ''}
          onChange={(v) => change({ statusMap: { ...form.statusMap, [status]: v } })}
        />
      ))}
      <h3>Pick-up</h3>
      <label htmlFor="tracker-pickup">Start sessions by themselves</label>
      <input
        id="tracker-pickup"
        type="checkbox"
        checked={form.pickup}
        onChange={(e) => change({ pickup: e.target.checked })}
      />
      {form.pickup ? (
        <>
          {form.kind === 'github' ? (
            <>
              <label htmlFor="tracker-label">Issues with the label</label>
              <input id="tracker-label" value={form.label} onChange={(e) => change({ label: e.target.value })} />
            </>
          ) : null}
          <label htmlFor="tracker-assignee">Issues assigned to</label>
          <input
            id="tracker-assignee"
            value={form.assignee}
            placeholder={form.kind === 'redmine' ? 'me, or a user id' : 'a login'}
            onChange={(e) => change({ assignee: e.target.value })}
          />
          <label htmlFor="tracker-every">Look every (seconds, at least 60)</label>
          <input
            id="tracker-every"
            type="number"
            min={60}
            value={form.everySeconds}
            onChange={(e) => change({ everySeconds: e.target.value })}
          />
          <span>Agent</span>
          <AgentKindSelect
            value={form.agent}
            onChange={(agent) => change({ agent })}
            workspaceDefault={null}
            name="tracker-agent"
            label="Agent for picked-up issues"
          />
        </>
      ) : null}
      <ErrorBanner error={set.error} />
      {set.isSuccess ? <p className="muted">Saved.</p> : null}
      <div className="form-actions">
        <button
          type="submit"
          className="primary"
          disabled={set.isPending || !form.url || !form.project || !form.secretId}
        >
          Save tracker
        </button>
        {settings ? (
          <button type="button" disabled={set.isPending} onClick={() => set.mutate({ workspace, tracker: null })}>
            Remove tracker
          </button>
        ) : null}
      </div>
    </form>
  );
}

function StatusField(props: {
  status: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (v: string) => void;
}) {
  const id = `tracker-status-${props.status}`;
  return (
    <>
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        value={props.value}
        placeholder={props.placeholder}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </>
  );
}
