import type { ReactNode } from 'react';

/** A line the operator must see now (role alert): an error in red, a warning in amber. */
export function Banner({ tone, testId, children }: { tone: 'bad' | 'warn'; testId?: string; children: ReactNode }) {
  return (
    <p role="alert" className={`banner ${tone}`} data-testid={testId}>
      {children}
    </p>
  );
}

/** The error of the last attempt in the words core used (or a form's own problem); nothing without one. */
export function ErrorBanner({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return <Banner tone="bad">{typeof error === 'string' ? error : error.message}</Banner>;
}
