import { estimateShort, estimateWords, tokensShort } from '../../../../shared/usage-words';
import { useOpQuery } from '../../api/use-op-query';
import { useNexusEvent } from '../../api/context';
import { lastTurn, PreviewShots } from './PreviewsPanel';
import { useSessionsUsage } from './SessionUsage';

/**
 * What the compare of attempts shows of each one beside its diff stat and turns: its run command's result (the run
 * window's last lines), its model use and estimated cost (the gateway's), and its previews' latest screenshot.
 */

/** The repository's run command for this attempt: not there, not started, or its window's last lines. */
export function AttemptRun({ sessionId }: { sessionId: string }) {
  const view = useOpQuery('sessions.setup', { session: sessionId }, { retry: false });
  useNexusEvent('sessions.setupChanged', (e) => {
    if (e.sessionId === sessionId) void view.refetch();
  });
  const run = view.data?.run;
  if (!run) return <span className="muted">{view.error ? view.error.message : '…'}</span>;
  if (!run.command) return <span className="muted">No run command</span>;
  if (!run.windowId) return <span className="muted">Not started</span>;
  const tail = (run.output ?? '').trimEnd().split('\n').slice(-3).join('\n');
  return (
    <pre className="setup-output" data-testid="attempt-run" title={run.command}>
      {tail || 'Running, nothing printed yet'}
    </pre>
  );
}

/** Its model tokens and the estimate, as the session row says them; nothing before its first model answer. */
export function AttemptCost({ sessionId }: { sessionId: string }) {
  const usage = useSessionsUsage()?.get(sessionId);
  if (!usage) return <span className="muted">No model use yet</span>;
  return (
    <span data-testid="attempt-cost" title={estimateWords(usage.estimate)}>
      {tokensShort(usage.totals.total)} tok · {estimateShort(usage.estimate)}
    </span>
  );
}

/** The screenshots of its previews at its last turn end that had any. */
export function AttemptScreenshot({ sessionId }: { sessionId: string }) {
  const shots = useOpQuery('previews.screenshots', { session: sessionId }, { retry: false });
  const latest = lastTurn(shots.data?.screenshots ?? []);
  if (latest.length === 0) return <span className="muted">No screenshot</span>;
  return <PreviewShots shots={latest} label="Latest" />;
}
