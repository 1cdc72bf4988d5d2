import { useState } from 'react';
import { useNexusEvent } from '../../api/context';
import { opKey } from '../../api/query-keys';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** "Push branch": pushes with the workspace's vault secret, shows git's progress, then the provider's PR link. */
export function PushPanel({ sessionId, disabled }: { sessionId: string; disabled?: boolean }) {
  const [step, setStep] = useState<{ step: string; fraction?: number } | null>(null);
  const push = useOperation('sessions.push', [opKey('sessions.diff', { session: sessionId })]);
  useNexusEvent('sessions.pushProgress', (p) => {
    if (p.sessionId === sessionId)
      setStep({ step: p.step, ...(p.fraction !== undefined ? { fraction: p.fraction } : {}) });
  });
  const result = push.data;
  return (
    <div className="push-panel" data-testid="push-panel">
      <button
        type="button"
        onClick={() => {
          setStep(null);
          push.mutate({ session: sessionId });
        }}
        disabled={disabled || push.isPending}
      >
        {push.isPending ? 'Pushing…' : 'Push branch'}
      </button>
      {push.isPending && step ? (
        <span role="status">
          {step.step}
          {step.fraction !== undefined ? <progress max={1} value={step.fraction} /> : null}
        </span>
      ) : null}
      {result && !push.isPending ? (
        <span role="status" data-testid="push-result">
          Pushed {result.branch} at <code>{result.head.slice(0, 8)}</code>
          {result.created ? ' (new on the remote)' : ''}.{' '}
          {result.link ? (
            <a href={result.link.url} target="_blank" rel="noopener noreferrer">
              {result.link.provider === 'gitlab' ? 'Open a merge request' : 'Open a pull request'}
            </a>
          ) : (
            <span className="muted">No pull-request link for this host.</span>
          )}
        </span>
      ) : null}
      <ErrorBanner error={push.error} />
    </div>
  );
}
