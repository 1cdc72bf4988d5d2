import type { ReactNode } from 'react';

export function Page({
  title,
  actions,
  className,
  children,
}: {
  title: string;
  actions?: ReactNode;
  /** A page's own layout class beside `page` (the Sessions split view fills the window). */
  className?: string;
  children: ReactNode;
}) {
  return (
    <section className={className ? `page ${className}` : 'page'} aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <h2>{title}</h2>
      {children}
    </div>
  );
}
