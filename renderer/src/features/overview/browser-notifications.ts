import { useEffect, useRef, useState } from 'react';
import { newlyNeedingYou, type FleetAttention } from '../../../../shared/attention';

/**
 * In a plain browser (headless host) the operator may opt in to the Notification API with a
 * click; Electron shows native notifications from the main process instead.
 */
export function useBrowserNotifications(fleet: FleetAttention | undefined, enabled: boolean) {
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>(() =>
    typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
  );
  const before = useRef<FleetAttention | null>(null);
  useEffect(() => {
    if (!fleet) return;
    const fresh = before.current ? newlyNeedingYou(before.current, fleet) : [];
    before.current = fleet;
    if (!enabled || permission !== 'granted') return;
    for (const item of fresh)
      new Notification('Nexus needs you', {
        body: `${item.reason} — ${item.workspaceName} · ${item.sessionName}`,
        tag: item.sessionId,
      });
  }, [fleet, enabled, permission]);
  const request = async (): Promise<void> => {
    if (typeof Notification === 'undefined') return;
    setPermission(await Notification.requestPermission());
  };
  return { permission, request };
}
