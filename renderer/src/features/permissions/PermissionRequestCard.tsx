import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { PermissionDecisionInput, PermissionRequest } from '../../../../shared/contract/permissions';
import { useApi } from '../../api/context';
import { DenyNoteForm } from './DenyNoteForm';
import { GrantButtons } from './GrantButtons';
import { viewToolInput } from './tool-input';
import { permissionsKey } from './use-permissions';
import './permissions.css';
import { ErrorBanner } from '../../shell/ErrorBanner';

const time = (iso: string): string =>
  new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/**
 * One tool call waiting for the operator: the tool, its (redacted) input, Allow once, Deny and Deny with a
 * note, and the grants that save a rule (GrantButtons), or the rule that always asks about it. The answer goes back
 * through the agent's permission hook; the card leaves with the `permissions.changed` event that follows.
 */
export function PermissionRequestCard({ request }: { request: PermissionRequest }) {
  const api = useApi();
  const client = useQueryClient();
  const decide = useMutation({
    mutationFn: (input: PermissionDecisionInput) => api['permissions.decide'](input),
    // Decided: the permissions.changed event removes the card. Refused (expired meanwhile): read the list again.
    onError: () => void client.invalidateQueries({ queryKey: permissionsKey }),
  });
  const [noting, setNoting] = useState(false);
  const { headline, detail } = viewToolInput(request.toolName, request.toolInput);
  const busy = decide.isPending || decide.isSuccess;
  return (
    <article
      className="permission-request"
      aria-label={`Permission request: ${request.toolName}`}
      data-testid="permission-request"
      data-tool={request.toolName}
    >
      <header>
        <strong>{request.toolName}</strong> asks to run
        <span className="muted">
          {' '}
          · answer by {time(request.expiresAt)},{' '}
          {request.unanswered === 'denied' ? 'else it is not run' : 'then the question stays in the terminal'}
        </span>
      </header>
      {headline ? <pre className="command permission-headline">{headline}</pre> : null}
      {request.askedBy ? (
        <p className="muted" data-testid="permission-asked-by">
          Always asked by rule {request.askedBy}
        </p>
      ) : null}
      <details>
        <summary>Full input</summary>
        <pre className="command" data-testid="permission-input">
          {detail}
        </pre>
      </details>
      <div className="permission-actions">
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => decide.mutate({ id: request.id, behavior: 'allow' })}
        >
          Allow once
        </button>
        <button type="button" disabled={busy} onClick={() => decide.mutate({ id: request.id, behavior: 'deny' })}>
          Deny
        </button>
        {noting ? null : (
          <button type="button" disabled={busy} onClick={() => setNoting(true)}>
            Deny with a note
          </button>
        )}
      </div>
      {request.askedBy ? null : <GrantButtons requestId={request.id} disabled={busy} />}
      {noting ? (
        <DenyNoteForm
          disabled={busy}
          onCancel={() => setNoting(false)}
          onDeny={(note) => decide.mutate({ id: request.id, behavior: 'deny', note })}
        />
      ) : null}
      <ErrorBanner error={decide.error} />
    </article>
  );
}
