import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/context';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** Create a session in a workspace, optionally with its first prompt. */
export function CreateSessionForm({ knownWorkspaces }: { knownWorkspaces: string[] }) {
  const api = useApi();
  const workspaces = useQuery({ queryKey: ['workspaces.list'], queryFn: () => api['workspaces.list']({}) });
  const names = [...new Set([...(workspaces.data?.workspaces.map((w) => w.name) ?? []), ...knownWorkspaces])].sort();
  const [workspace, setWorkspace] = useState('');
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api['sessions.create']({
        workspace: workspace || names[0] || '',
        name,
        ...(message ? { initialMessage: message } : {}),
      }),
    onSuccess: () => {
      setName('');
      setMessage('');
    },
  });
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="session-create" onSubmit={submit} aria-label="New session">
      <label>
        Workspace
        {names.length > 0 ? (
          <select value={workspace || names[0]} onChange={(e) => setWorkspace(e.target.value)} name="workspace">
            {names.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        ) : (
          <input
            value={workspace}
            onChange={(e) => setWorkspace(e.target.value)}
            name="workspace"
            placeholder="workspace name"
            required
          />
        )}
      </label>
      <label>
        Name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          name="name"
          placeholder="fix-auth"
          pattern="[a-z0-9][a-z0-9._\-]{0,62}"
          required
        />
      </label>
      <label>
        Initial message
        <textarea
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          name="initialMessage"
          rows={3}
          placeholder="What should the agent start on?"
        />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create session
      </button>
      <ErrorBanner error={create.error} />
    </form>
  );
}
