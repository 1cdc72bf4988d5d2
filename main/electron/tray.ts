import { app, Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';
import type { FleetAttention } from '../../shared/attention';
import { NOTHING_NEEDS_YOU, needYouCount, sessionLabel, trayTooltipWords } from '../../shared/attention-words';
import type { Disposable } from '../core/disposable';
import type { EventBus } from '../core/events';

export interface TrayActions {
  open(): void;
  openSession(sessionId: string): void;
  quit(): void;
}

/** The tray menu: what needs you (click opens that session), then Open and Quit. */
export function trayMenu(fleet: FleetAttention | null, actions: TrayActions): MenuItemConstructorOptions[] {
  const waiting = fleet?.needsYou ?? [];
  const items: MenuItemConstructorOptions[] = waiting.length
    ? [
        { label: needYouCount(waiting.length), enabled: false },
        ...waiting.map((i) => ({
          label: `${sessionLabel(i)} — ${i.reason}`,
          click: () => actions.openSession(i.sessionId),
        })),
      ]
    : [{ label: NOTHING_NEEDS_YOU, enabled: false }];
  return [
    ...items,
    { type: 'separator' },
    { label: 'Open Nexus', click: actions.open },
    { label: 'Quit', click: actions.quit },
  ];
}

export const trayTooltip = (fleet: FleetAttention | null): string => trayTooltipWords(fleet?.counts.needs_you ?? 0);

/**
 * Keeps the tray (where the desktop has one), the dock badge (macOS) and the badge count in step
 * with `attention.changed`. Without a tray (GNOME without AppIndicator) creation fails quietly and
 * notifications, sent by core, still work.
 */
export function startTray(
  events: EventBus,
  iconPath: string,
  actions: TrayActions,
  initial: FleetAttention | null = null,
): Disposable {
  let tray: Tray | null = null;
  try {
    tray = new Tray(nativeImage.createFromPath(iconPath));
  } catch {
    tray = null;
  }
  const render = (fleet: FleetAttention | null): void => {
    const count = fleet?.counts.needs_you ?? 0;
    if (tray) {
      tray.setToolTip(trayTooltip(fleet));
      tray.setContextMenu(Menu.buildFromTemplate(trayMenu(fleet, actions)));
      if (process.platform === 'darwin') tray.setTitle(count > 0 ? String(count) : '');
    }
    app.setBadgeCount(count);
    if (process.platform === 'darwin') app.dock?.setBadge(count > 0 ? String(count) : '');
  };
  render(initial);
  const subscription = events.subscribe((event) => {
    if (event.name === 'attention.changed') render(event.payload as FleetAttention);
  });
  return {
    dispose: () => {
      subscription.dispose();
      tray?.destroy();
    },
  };
}
