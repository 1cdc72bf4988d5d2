import type { FirstRunStep } from './first-run';
import './overview.css';

/** "Get started": the four first-run steps, each a link to its form, each saying whether it is done. */
export function FirstRunChecklist({ steps }: { steps: readonly FirstRunStep[] }) {
  const done = steps.filter((s) => s.done).length;
  return (
    <section aria-labelledby="first-run-title" className="first-run" data-testid="first-run">
      <h2 id="first-run-title">Get started</h2>
      <p className="muted">
        From an empty Nexus to an agent at work: {done} of {steps.length} steps done. Each step ticks itself when it is
        done.
      </p>
      <ol className="first-run-steps">
        {steps.map((step) => (
          <li key={step.id} data-step={step.id} className={step.done ? 'done' : undefined}>
            <span className="first-run-mark" aria-hidden="true">
              {step.done ? '✓' : ''}
            </span>
            <div>
              <a href={step.href}>{step.title}</a>{' '}
              <span className={step.done ? 'chip tone-ok' : 'chip'} data-testid="first-run-state">
                {step.done ? 'Done' : 'To do'}
              </span>
              <p className="muted">{step.how}</p>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
