import { useState } from 'react';
import type { DraftSkill } from '../../../../shared/contract';
import { ProvenanceLine } from './Provenance';
import { useDecision } from './use-review-queue';
import { ErrorBanner } from '../../shell/ErrorBanner';

/** A draft skill with its scanner findings. A flagged draft is approved only with an override reason. */
export function SkillDraft({ skill }: { skill: DraftSkill }) {
  const approve = useDecision('review.approveSkill');
  const reject = useDecision('review.rejectSkill');
  const [reason, setReason] = useState('');
  const flagged = skill.findings.length > 0;
  const busy = approve.isPending || reject.isPending;
  const error = approve.error ?? reject.error;
  return (
    <li aria-label={`Skill: ${skill.name}`} data-testid="skill-draft">
      <div>
        <strong>{skill.name}</strong> <code>{skill.slug}</code> v{skill.version}
        {skill.activeVersion ? (
          <span className="chip">replaces v{skill.activeVersion}</span>
        ) : (
          <span className="chip">new</span>
        )}
        {flagged ? (
          <span className="chip tone-bad">
            {skill.findings.length} finding{skill.findings.length > 1 ? 's' : ''}
          </span>
        ) : null}
      </div>
      <p>{skill.description}</p>
      {flagged ? (
        <ul aria-label="Scanner findings" className="tone-bad">
          {skill.findings.map((f, i) => (
            <li key={i}>
              <strong>{f.rule}</strong> (line {f.line}): {f.message} <code>{f.excerpt}</code>
            </li>
          ))}
        </ul>
      ) : null}
      <details>
        <summary>SKILL.md</summary>
        <pre style={{ whiteSpace: 'pre-wrap' }}>{skill.markdown}</pre>
      </details>
      <ProvenanceLine provenance={skill.provenance} />
      <ErrorBanner error={error} />
      <div className="review-actions" style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        {flagged ? (
          <>
            <label>
              Override reason <input value={reason} onChange={(e) => setReason(e.target.value)} />
            </label>
            <button
              className="primary"
              disabled={busy || !reason.trim()}
              onClick={() => approve.mutate({ id: skill.id, override: { reason } })}
            >
              Override and approve
            </button>
          </>
        ) : (
          <button className="primary" disabled={busy} onClick={() => approve.mutate({ id: skill.id })}>
            Approve
          </button>
        )}
        <button disabled={busy} onClick={() => reject.mutate({ id: skill.id })}>
          Reject
        </button>
      </div>
    </li>
  );
}
