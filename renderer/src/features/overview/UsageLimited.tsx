import type { SessionAttention } from '../../../../shared/attention';
import { sessionLabel } from '../../../../shared/attention-words';

/**
 * Sessions held by their model provider's usage limit (docs/gateway.md, "Usage limits"): not an error and not
 * something to do, so apart from Needs you; Nexus resumes each at its reset. Nothing when none is.
 */
export function UsageLimited({ sessions }: { sessions: readonly SessionAttention[] }) {
  const limited = sessions.filter((s) => s.limitedUntil);
  if (limited.length === 0) return null;
  return (
    <section aria-labelledby="usage-limited-title" data-testid="usage-limited">
      <h2 id="usage-limited-title">Usage limits ({limited.length})</h2>
      <ul className="list">
        {limited.map((s) => (
          <li key={s.sessionId} data-session-id={s.sessionId}>
            {sessionLabel(s)} — {s.reason}
            <span className="muted"> (resumes by itself)</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
