import { SealedVaultBanner } from '../features/settings/SealedVaultBanner';
import { Banner } from './ErrorBanner';
import { useAppInfo } from './use-app-info';

/** App-wide warnings: Docker down, NATS down, vault locked — each with the reason core gave. */
export function Banners() {
  const info = useAppInfo().data;
  if (!info) return null;
  const banners: { id: string; tone: 'bad' | 'warn'; text: string }[] = [];
  if (info.docker.state === 'unavailable')
    banners.push({
      id: 'docker',
      tone: 'bad',
      text: `Docker is not reachable — workspaces cannot start. ${info.docker.reason}`,
    });
  if (info.nats.state === 'unavailable')
    banners.push({
      id: 'nats',
      tone: 'bad',
      text: `NATS is down — agents cannot reach their platform tools. ${info.nats.reason}`,
    });
  // A vault without a keychain is sealed at every start: its banner carries the passphrase field.
  const sealed = info.vault.state === 'locked' && info.vault.mode !== null && info.vault.mode !== 'keychain';
  if (info.vault.state === 'locked' && !sealed)
    banners.push({
      id: 'vault',
      tone: 'warn',
      text: `The vault is locked — creating or starting workspaces needs it. ${info.vault.reason}`,
    });
  if (banners.length === 0 && !sealed) return null;
  return (
    <div className="banners">
      {sealed ? (
        <SealedVaultBanner reason={info.vault.reason} withPassphrase={info.vault.mode === 'passphrase'} />
      ) : null}
      {banners.map((b) => (
        <Banner key={b.id} tone={b.tone} testId={`banner-${b.id}`}>
          {b.text}
        </Banner>
      ))}
    </div>
  );
}
