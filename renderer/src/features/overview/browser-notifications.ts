import { useEffect, useRef, useState } from 'react';
import { newlyNeedingYou, type FleetAttention } from '../../../../shared/attention';
import { needsYouNotification } from '../../../../shared/attention-words';
import { sessionHref } from '../../shell/routes';

const supported = (): boolean => typeof Notification !== 'undefined';

/** Whether this browser lets Nexus notify, and the click that asks (the Overview's button). */
export function useNotificationPermission() {
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>(() =>
    supported() ? Notification.permission : 'unsupported',
  );
  const request = async (): Promise<void> => {
    if (!supported()) return;
    setPermission(await Notification.requestPermission());
  };
  return { permission, request };
}

/**
 * In a plain browser (headless host), once the operator opted in: a notification for every session
 * that has just entered needs_you, whatever page is open, naming the session and why ("Permission
 * needed: Bash"); a click brings the tab forward on that session. Electron shows native
 * notifications from the main process instead (`enabled` false there).
 */
export function useBrowserNotifications(fleet: FleetAttention | undefined, enabled: boolean): void {
  const before = useRef<FleetAttention | null>(null);
  useEffect(() => {
    if (!fleet) return;
    const fresh = before.current ? newlyNeedingYou(before.current, fleet) : [];
    before.current = fleet;
    if (!enabled || !supported() || Notification.permission !== 'granted') return;
    for (const item of fresh) {
      const { title, body } = needsYouNotification(item);
      const note = new Notification(title, { body, tag: item.sessionId });
      note.onclick = () => {
        window.focus();
        window.location.hash = sessionHref(item.sessionId);
        note.close();
      };
    }
  }, [fleet, enabled]);
}
