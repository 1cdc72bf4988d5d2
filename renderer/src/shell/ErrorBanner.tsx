import type { ReactNode } from 'react';

/**
 * A line set apart: an error in red, a warning in amber. Announced at once (role alert) unless it is
 * a standing note that is part of the page (`note`).
 */
export function Banner({
  tone,
  testId,
  note,
  children,
}: {
  tone: 'bad' | 'warn';
  testId?: string;
  note?: boolean;
  children: ReactNode;
}) {
  return (
    <p role={note ? undefined : 'alert'} className={`banner ${tone}`} data-testid={testId}>
      {children}
    </p>
  );
}

/** The error of the last attempt in the words core used (or a form's own problem); nothing without one. */
export function ErrorBanner({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return <Banner tone="bad">{typeof error === 'string' ? error : error.message}</Banner>;
}
