import { useCallback, useEffect, useState } from 'react';

export const pages = [
  { id: 'overview', label: 'Overview' },
  { id: 'workspaces', label: 'Workspaces' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'board', label: 'Board' },
  { id: 'review', label: 'Review' },
  { id: 'settings', label: 'Settings' },
] as const;
export type PageId = (typeof pages)[number]['id'];

const isPage = (s: string): s is PageId => pages.some((p) => p.id === s);

/** Hash routing (`#/workspaces`): works the same under app:// and the loopback host. */
export function useRoute(): [PageId, (page: PageId) => void] {
  const read = (): PageId => {
    const id = window.location.hash.replace(/^#\/?/, '').split('/')[0] ?? '';
    return isPage(id) ? id : 'overview';
  };
  const [page, setPage] = useState<PageId>(read);
  useEffect(() => {
    const onHash = (): void => setPage(read());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return [page, (p) => void (window.location.hash = `#/${p}`)];
}

/** One URL per session: `#/sessions/<id>` (the Overview, the tray and a notification link there). */
export const sessionHref = (sessionId: string): string => `#/sessions/${encodeURIComponent(sessionId)}`;

const sessionInHash = (): string | null => {
  const [page, id] = window.location.hash.replace(/^#\/?/, '').split('/');
  return page === 'sessions' && id ? decodeURIComponent(id) : null;
};

/** The session selected last, so coming back to the Sessions page (its bare `#/sessions`) reopens it. */
let lastSelected: string | null = null;

/** The session the URL names; a bare `#/sessions` names the one selected last (and the URL says so). */
function selectedFromHash(): string | null {
  const named = sessionInHash();
  if (named) return (lastSelected = named);
  if (lastSelected && window.location.hash.replace(/^#\/?/, '').split('/')[0] === 'sessions')
    window.history.replaceState(null, '', sessionHref(lastSelected));
  return lastSelected;
}

/**
 * The session the URL names, and a way to select another: a click adds a history entry (Back
 * returns to the session before), a keyboard move replaces it (holding ↓ does not fill the history).
 */
export function useSelectedSession(): [string | null, (id: string, how?: 'push' | 'replace') => void] {
  const [selected, setSelected] = useState<string | null>(selectedFromHash);
  useEffect(() => {
    const onHash = (): void => setSelected(selectedFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const select = useCallback((id: string, how: 'push' | 'replace' = 'push'): void => {
    lastSelected = id;
    setSelected(id);
    if (how === 'replace') window.history.replaceState(null, '', sessionHref(id));
    else if (window.location.hash !== sessionHref(id)) window.history.pushState(null, '', sessionHref(id));
  }, []);
  return [selected, select];
}
