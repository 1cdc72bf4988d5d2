import type { ReactNode } from 'react';
import { BoardPage } from '../features/board/BoardPage';
import { OverviewPage } from '../features/overview/OverviewPage';
import { ReviewPage } from '../features/review/ReviewPage';
import { SessionsPage } from '../features/sessions/SessionsPage';
import { SettingsPage } from '../features/settings/SettingsPage';
import { WorkspacesPage } from '../features/workspaces/WorkspacesPage';
import { pages, useRoute, type PageId } from './routes';
import { Banners } from './Banners';
import { StatusBar } from './StatusBar';
import { useTheme } from './theme';
import { useTitleCount } from './use-title-count';
import { useBrowserNotifications } from '../features/overview/browser-notifications';
import { useAttention } from '../features/overview/use-attention';
import { useLiveUpdates } from '../api/live-updates';

const content: Record<PageId, () => ReactNode> = {
  overview: () => <OverviewPage />,
  workspaces: () => <WorkspacesPage />,
  sessions: () => <SessionsPage />,
  board: () => <BoardPage />,
  review: () => <ReviewPage />,
  settings: () => <SettingsPage />,
};

export function App() {
  const [page, go] = useRoute();
  const [theme, toggleTheme] = useTheme();
  useTitleCount();
  useLiveUpdates();
  // Inside Electron the main process shows native notifications; a browser tab shows its own, on any page.
  useBrowserNotifications(useAttention().data, window.nexus === undefined);
  return (
    <div className="app">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Nexus</div>
        <ul>
          {pages.map((p) => (
            <li key={p.id}>
              <a href={`#/${p.id}`} aria-current={p.id === page ? 'page' : undefined} onClick={() => go(p.id)}>
                {p.label}
              </a>
            </li>
          ))}
        </ul>
        <button
          type="button"
          className="theme-toggle"
          onClick={toggleTheme}
          aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
        >
          {theme === 'dark' ? '☀ Light' : '☾ Dark'}
        </button>
      </nav>
      <main className="content">
        <Banners />
        {content[page]()}
      </main>
      <StatusBar />
    </div>
  );
}
