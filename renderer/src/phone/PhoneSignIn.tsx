import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { useEffect, useState } from 'react';
import { phonePost } from './phone-session';

/** The registration token in a one-time link (`#/register/<token>`), or null. */
export const registrationToken = (): string | null =>
  /^#\/register\/([A-Za-z0-9_-]{16,100})$/.exec(window.location.hash)?.[1] ?? null;

/** Signed out on the public origin: register this phone from a one-time link, or sign in with its passkey. No password. */
export function PhoneSignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState(registrationToken);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    const onHash = (): void => setToken(registrationToken());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const run = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
    } catch (e) {
      setMessage(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const register = () =>
    run(async () => {
      if (!token) return;
      const optionsJSON = await phonePost<Parameters<typeof startRegistration>[0]['optionsJSON']>(
        '/api/phone/register/options',
        { token },
      );
      const response = await startRegistration({ optionsJSON });
      await phonePost('/api/phone/register', { token, response });
      window.history.replaceState(null, '', '/#/');
      setToken(null);
      setMessage('This phone is registered. Sign in with its passkey.');
    });
  const signIn = () =>
    run(async () => {
      const optionsJSON = await phonePost<Parameters<typeof startAuthentication>[0]['optionsJSON']>(
        '/api/phone/signin/options',
        {},
      );
      const response = await startAuthentication({ optionsJSON });
      await phonePost('/api/phone/signin', { response });
      onSignedIn();
    });
  return (
    <main className="phone-signin">
      <h1>Nexus</h1>
      {token ? (
        <>
          <p>Register a passkey on this phone, so it can answer your fleet from anywhere.</p>
          <button type="button" className="primary" disabled={busy} onClick={() => void register()}>
            Register this phone
          </button>
        </>
      ) : (
        <>
          <p>
            Sign in with this phone&apos;s passkey. A phone is registered from Nexus on your computer (Settings →
            Access).
          </p>
          <button type="button" className="primary" disabled={busy} onClick={() => void signIn()}>
            Sign in with passkey
          </button>
        </>
      )}
      {message ? (
        <p role="status" data-testid="phone-message">
          {message}
        </p>
      ) : null}
    </main>
  );
}
