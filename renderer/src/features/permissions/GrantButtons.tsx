import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RuleGrant } from '../../../../shared/contract/rules';
import { useApi } from '../../api/context';
import { useOpQuery } from '../../api/use-op-query';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { permissionsKey } from './use-permissions';

const GRANTS: { grant: RuleGrant; label: string }[] = [
  { grant: 'session', label: 'Allow this for the session' },
  { grant: 'workspace_hour', label: 'Allow in the workspace for 1 h' },
  { grant: 'workspace', label: 'Allow in the workspace always' },
];

/**
 * The card's grants beside "Allow once": each saves the narrowest rule matching what was asked, shown before it is
 * saved (rules.draft), then allows the request. A call an always-ask rule asked about has none (ask beats allow).
 */
export function GrantButtons({ requestId, disabled }: { requestId: string; disabled: boolean }) {
  const api = useApi();
  const client = useQueryClient();
  const [chosen, setChosen] = useState<RuleGrant | null>(null);
  const draft = useOpQuery('rules.draft', { requestId }, { enabled: chosen !== null, staleTime: Infinity });
  const grant = useMutation({
    mutationFn: (g: RuleGrant) => api['rules.grant']({ requestId, grant: g }),
    onError: () => void client.invalidateQueries({ queryKey: permissionsKey }),
  });
  const busy = disabled || grant.isPending || grant.isSuccess;
  return (
    <div className="permission-grants">
      {GRANTS.map((g) => (
        <button
          key={g.grant}
          type="button"
          disabled={busy}
          aria-pressed={chosen === g.grant}
          onClick={() => setChosen(g.grant)}
        >
          {g.label}
        </button>
      ))}
      {chosen ? (
        <div className="permission-grant-draft" data-testid="grant-draft">
          {draft.data?.draft ? (
            <>
              <span>
                Saves the rule <code>{draft.data.draft.text}</code>
                {chosen === 'session' ? ' for this session' : chosen === 'workspace_hour' ? ' for 1 h' : ''}.
              </span>
              <button type="button" className="primary" disabled={busy} onClick={() => grant.mutate(chosen)}>
                Save and allow
              </button>
            </>
          ) : draft.data ? (
            <span className="muted">{draft.data.reason}</span>
          ) : (
            <span className="muted">Reading the rule…</span>
          )}
          <button type="button" disabled={busy} onClick={() => setChosen(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      <ErrorBanner error={draft.error ?? grant.error} />
    </div>
  );
}
