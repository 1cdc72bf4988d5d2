import type { AppInfo } from '../../../shared/contract';
import { useAppInfo } from './use-app-info';

const tone: Record<string, 'ok' | 'warn' | 'bad'> = {
  unlocked: 'ok',
  available: 'ok',
  running: 'ok',
  external: 'ok',
  uninitialized: 'warn',
  locked: 'warn',
  starting: 'warn',
  stopped: 'warn',
  unavailable: 'bad',
};

function Item({ label, part }: { label: string; part: AppInfo['vault'] | AppInfo['docker'] | AppInfo['nats'] }) {
  return (
    <span
      className={`status-item tone-${tone[part.state] ?? 'warn'}`}
      title={part.reason}
      data-testid={`status-${label.toLowerCase()}`}
    >
      <span className="dot" aria-hidden="true" />
      {label}: <strong>{part.state}</strong>
    </span>
  );
}

export function StatusBar() {
  const info = useAppInfo();
  return (
    <footer className="status-bar" role="status" aria-label="System status" data-testid="status-bar">
      {info.data ? (
        <>
          <Item label="Vault" part={info.data.vault} />
          <Item label="Docker" part={info.data.docker} />
          <Item label="NATS" part={info.data.nats} />
          <span className="status-version">Nexus {info.data.version}</span>
        </>
      ) : info.error ? (
        <span className="tone-bad">Cannot reach Nexus: {info.error.message}</span>
      ) : (
        <span>Connecting…</span>
      )}
    </footer>
  );
}
