import { useEffect, useState } from 'react';

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
