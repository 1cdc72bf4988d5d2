import { useNexusEvent } from '../../api/context';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';

const STATE_WORDS = {
  none: 'No setup',
  running: 'Setup running…',
  ok: 'Setup done',
  failed: 'Setup failed: the agent was not started',
  skipped: 'Setup skipped',
} as const;

/**
 * The session's own setup and run, from its repository's devcontainer.json (customizations.nexus): the setup's state
 * and output (retry, or skip to start the agent anyway, after a failure), Run (the run command in a tmux window of
 * its own) with that window's last lines, and the session's ports. Nothing shown for a repository without a recipe.
 */
export function SetupPanel({ sessionId, canAct }: { sessionId: string; canAct: boolean }) {
  const key = opKey('sessions.setup', { session: sessionId });
  const view = useOpQuery('sessions.setup', { session: sessionId }, { retry: false });
  useNexusEvent('sessions.setupChanged', (e) => {
    if (e.sessionId === sessionId) void view.refetch();
  });
  const retry = useOperation('sessions.retrySetup', [key]);
  const run = useOperation('sessions.run', [key]);
  // Retry and Run refresh the view (their answers are the view too, shown until it is back).
  const v = view.data ?? run.data ?? retry.data;
  if (!v) return null;
  const { setup, ports } = v;
  if (!v.recipeFile && setup.state === 'none' && !ports) return null;
  return (
    <section className="session-setup" aria-label="Setup and run" data-testid="session-setup">
      <h3>Setup and run</h3>
      <p className="muted">
        {v.recipeFile ? <>From {v.recipeFile}. </> : null}
        {ports ? (
          <>
            Ports: <code data-testid="session-ports">PORT={ports.first}</code>, NEXUS_PORTS={ports.first}-{ports.last}.
          </>
        ) : null}
      </p>
      {setup.command ? (
        <div data-testid="setup-state" data-state={setup.state}>
          <p role={setup.state === 'failed' ? 'alert' : 'status'}>
            {STATE_WORDS[setup.state]}
            {setup.exitCode !== null && setup.state === 'failed' ? ` (exit ${setup.exitCode})` : ''}:{' '}
            <code>{setup.command}</code>
          </p>
          {setup.output ? <pre className="setup-output">{setup.output}</pre> : null}
          {setup.state === 'failed' && canAct ? (
            <p>
              <button
                type="button"
                disabled={retry.isPending}
                onClick={() => retry.mutate({ session: sessionId, skip: false })}
              >
                Retry setup
              </button>{' '}
              <button
                type="button"
                disabled={retry.isPending}
                onClick={() => retry.mutate({ session: sessionId, skip: true })}
              >
                Skip setup and start the agent
              </button>
            </p>
          ) : null}
          {retry.error ? <ErrorBanner error={retry.error} /> : null}
        </div>
      ) : null}
      {v.run.command ? (
        <div data-testid="run">
          <p>
            {canAct ? (
              <button type="button" disabled={run.isPending} onClick={() => run.mutate({ session: sessionId })}>
                {v.run.windowId ? 'Restart' : 'Run'}
              </button>
            ) : null}{' '}
            <code>{v.run.command}</code>
            {v.run.windowId ? <span className="muted"> · running in its own window</span> : null}
          </p>
          {v.run.output ? (
            <pre className="setup-output" data-testid="run-output">
              {v.run.output}
            </pre>
          ) : null}
          {run.error ? <ErrorBanner error={run.error} /> : null}
        </div>
      ) : null}
    </section>
  );
}
