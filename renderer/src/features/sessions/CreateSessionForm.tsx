import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { operations } from '../../../../shared/contract';
import type { AgentKind } from '../../../../shared/contract/sessions';
import { useApi } from '../../api/context';
import { useOpQuery } from '../../api/use-op-query';
import { useSchemaForm } from '../../shell/schema-form';
import { useFieldError } from '../../shell/use-field-error';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { AgentKindSelect } from './AgentKindSelect';
import { MessageText } from './MessageText';

/** Create a session in a workspace, optionally with its first prompt. */
export function CreateSessionForm({ knownWorkspaces }: { knownWorkspaces: string[] }) {
  const api = useApi();
  const workspaces = useOpQuery('workspaces.list', {});
  const names = [...new Set([...(workspaces.data?.workspaces.map((w) => w.name) ?? []), ...knownWorkspaces])].sort();
  const [workspace, setWorkspace] = useState('');
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const [agent, setAgent] = useState<'' | AgentKind>('');
  const chosenName = workspace || names[0] || '';
  const chosen = workspaces.data?.workspaces.find((w) => w.name === chosenName);
  const input = {
    workspace: chosenName,
    name,
    ...(message ? { initialMessage: message } : {}),
    ...(agent ? { agent } : {}),
  };
  // The contract's schema judges the form (SessionName's rules live in shared/contract/sessions.ts only).
  const form = useSchemaForm(operations['sessions.create'].input, input);
  const workspaceField = useFieldError(form.errorOf('workspace'));
  const nameField = useFieldError(form.errorOf('name'));
  const create = useMutation({
    mutationFn: () => api['sessions.create'](input),
    onSuccess: () => {
      setName('');
      setMessage('');
      form.reset();
    },
  });
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (form.submit()) create.mutate();
  };
  return (
    <form className="session-create" onSubmit={submit} aria-label="New session" ref={form.formRef} noValidate>
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
            {...workspaceField.input}
          />
        )}
        {workspaceField.message}
      </label>
      <label>
        Name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          name="name"
          placeholder="fix-auth"
          {...nameField.input}
        />
        {nameField.message}
      </label>
      <label>
        Agent
        <AgentKindSelect value={agent} onChange={setAgent} workspaceDefault={chosen?.defaultAgent ?? null} />
      </label>
      <label>
        Initial message
        <MessageText
          value={message}
          onValue={setMessage}
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
