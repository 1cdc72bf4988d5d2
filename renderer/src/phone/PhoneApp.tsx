import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { NexusApi } from '../../../shared/contract';
import { ApiProvider } from '../api/context';
import { httpApi } from '../api/http-transport';
import { BoardPage } from '../features/board/BoardPage';
import { OverviewPage } from '../features/overview/OverviewPage';
import { ReviewPage } from '../features/review/ReviewPage';
import { SessionsPage } from '../features/sessions/SessionsPage';
import { offerPhoneCsrf } from '../features/sessions/terminal-transport';
import { useRoute, type PageId } from '../shell/routes';
import { PhoneSignIn } from './PhoneSignIn';
import { PushToggle } from './PushToggle';
import { readPhoneSession, phonePost, type PhoneSession } from './phone-session';
import { registerServiceWorker } from './service-worker';
import './phone.css';

/** The pages a phone has (Settings, Workspaces and everything of the vault stay on the computer). */
const phonePages: { id: PageId; label: string; page: () => ReactNode }[] = [
  { id: 'overview', label: 'Needs you', page: () => <OverviewPage onPhone /> },
  { id: 'sessions', label: 'Sessions', page: () => <SessionsPage /> },
  { id: 'board', label: 'Board', page: () => <BoardPage /> },
  { id: 'review', label: 'Review', page: () => <ReviewPage /> },
];

/** The public origin has no event stream: the phone polls what it shows (the terminal is live, over its WebSocket). */
const POLL_MS = 3000;

/** The operator UI on the public origin: passkey sign-in, then the phone's four pages. */
export function PhoneApp() {
  const [session, setSession] = useState<PhoneSession | null>(null);
  const refresh = useCallback(() => void readPhoneSession().then(setSession, () => setSession(null)), []);
  useEffect(() => {
    refresh();
    registerServiceWorker();
  }, [refresh]);
  if (!session) return <p className="phone-loading">Loading…</p>;
  if (!session.signedIn || !session.csrf) return <PhoneSignIn onSignedIn={refresh} />;
  return <SignedIn session={session} csrf={session.csrf} onSignedOut={refresh} />;
}

function SignedIn({ session, csrf, onSignedOut }: { session: PhoneSession; csrf: string; onSignedOut: () => void }) {
  const api = useMemo<NexusApi>(() => {
    offerPhoneCsrf(csrf);
    const http = httpApi('', () => ({ 'x-nexus-csrf': csrf }));
    return { ...http, subscribe: () => () => undefined };
  }, [csrf]);
  const client = useMemo(
    () =>
      new QueryClient({
        defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: true, refetchInterval: POLL_MS } },
      }),
    [],
  );
  const [page, go] = useRoute();
  const current = phonePages.find((p) => p.id === page) ?? phonePages[0];
  const signOut = () => void phonePost('/api/phone/signout', {}, csrf).finally(onSignedOut);
  return (
    <ApiProvider api={api}>
      <QueryClientProvider client={client}>
        <div className="phone-app" data-testid="phone-app">
          <header className="phone-header">
            <span className="brand">Nexus</span>
            <span className="phone-device">{session.device}</span>
            <PushToggle csrf={csrf} />
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </header>
          <main className="content phone-content">{current?.page()}</main>
          <nav className="phone-tabs" aria-label="Main">
            {phonePages.map((p) => (
              <a
                key={p.id}
                href={`#/${p.id}`}
                aria-current={p.id === current?.id ? 'page' : undefined}
                onClick={() => go(p.id)}
              >
                {p.label}
              </a>
            ))}
          </nav>
        </div>
      </QueryClientProvider>
    </ApiProvider>
  );
}
