import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi } from './api/client';
import { ApiProvider } from './api/context';
import { App } from './shell/App';
import { PhoneApp } from './phone/PhoneApp';
import { isPhoneOrigin } from './phone/phone-mode';
import './styles.css';

const root = createRoot(document.getElementById('root')!);
if (isPhoneOrigin())
  root.render(
    <StrictMode>
      <PhoneApp />
    </StrictMode>,
  );
else renderDesktop();

function renderDesktop(): void {
  const { api } = createApi();
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });

  root.render(
    <StrictMode>
      <ApiProvider api={api}>
        <QueryClientProvider client={queryClient}>
          <App />
        </QueryClientProvider>
      </ApiProvider>
    </StrictMode>,
  );
}
