import { useEffect, useRef, type ReactNode } from 'react';

/** One titled block of the Settings page; `#/settings/<id>` (a link from the first-run checklist) scrolls to it. */
export function SettingsSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (window.location.hash === `#/settings/${id}`) ref.current?.scrollIntoView({ block: 'start' });
  }, [id]);
  return (
    <section ref={ref} className="settings-section" aria-labelledby={`settings-${id}`} data-testid={`settings-${id}`}>
      <h2 id={`settings-${id}`}>{title}</h2>
      {children}
    </section>
  );
}
