import { useState } from 'react';
import { phonePost } from './phone-session';

const base64UrlToBytes = (s: string): Uint8Array<ArrayBuffer> => {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
};

/** "Notify me": a push subscription for this phone (Nexus's VAPID key; none while the vault is sealed). */
export function PushToggle({ csrf }: { csrf: string }) {
  const [state, setState] = useState<string | null>(null);
  const enable = async (): Promise<void> => {
    try {
      const { key, reason } = (await (await fetch('/api/phone/push/key', { credentials: 'same-origin' })).json()) as {
        key: string | null;
        reason: string | null;
      };
      if (!key) return setState(reason ?? 'Push is not available.');
      if ((await Notification.requestPermission()) !== 'granted') return setState('Notifications are blocked.');
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: base64UrlToBytes(key),
      });
      await phonePost('/api/phone/push/subscribe', subscription.toJSON(), csrf);
      setState('Notifications on.');
    } catch (e) {
      setState(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <button type="button" onClick={() => void enable()}>
        Notify me
      </button>
      {state ? (
        <span role="status" className="phone-push-state" data-testid="phone-push-state">
          {state}
        </span>
      ) : null}
    </>
  );
}
