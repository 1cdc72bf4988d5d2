import { app, Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';
import type { FleetAttention } from '../../shared/attention';
import { NOTHING_NEEDS_YOU, needYouCount, trayTooltipWords } from '../../shared/attention-words';
import type { AppStatus } from '../../shared/contract';
import { needsYouLine, whatNeedsYou, type NeedsYouItem } from '../../shared/needs-you';
import type { Disposable } from '../core/disposable';
import type { EventBus } from '../core/events';

export interface TrayActions {
  open(): void;
  openSession(sessionId: string): void;
  quit(): void;
}

/** What needs you, as the Overview lists it: the app's own state, sessions, the review queue. */
export const trayNeedsYou = (fleet: FleetAttention | null, app: AppStatus | null): NeedsYouItem[] =>
  whatNeedsYou({ app, fleet: fleet ?? { needsYou: [] }, review: fleet?.review ?? { memories: 0, skills: 0 } });

/** The tray menu: what needs you (a session opens itself, anything else the app), then Open and Quit. */
export function trayMenu(
  fleet: FleetAttention | null,
  actions: TrayActions,
  app: AppStatus | null = null,
): MenuItemConstructorOptions[] {
  const waiting = trayNeedsYou(fleet, app);
  const items: MenuItemConstructorOptions[] = waiting.length
    ? [
        { label: needYouCount(waiting.length), enabled: false },
        ...waiting.map((i) => ({
          label: needsYouLine(i),
          click: i.kind === 'session' ? () => actions.openSession(i.session.sessionId) : actions.open,
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

export const trayTooltip = (fleet: FleetAttention | null, app: AppStatus | null = null): string =>
  trayTooltipWords(trayNeedsYou(fleet, app).length);

/**
 * Keeps the tray (where the desktop has one), the dock badge (macOS) and the badge count in step
 * with `attention.changed` and `app.status` (a vault not set up needs you too). Without a tray (GNOME without
 * AppIndicator) creation fails quietly and notifications, sent by core, still work.
 */
export function startTray(
  events: EventBus,
  iconPath: string,
  actions: TrayActions,
  initial: FleetAttention | null = null,
  initialApp: AppStatus | null = null,
): Disposable {
  let tray: Tray | null = null;
  try {
    tray = new Tray(nativeImage.createFromPath(iconPath));
  } catch {
    tray = null;
  }
  let fleet = initial;
  let appStatus = initialApp;
  const render = (): void => {
    const count = trayNeedsYou(fleet, appStatus).length;
    if (tray) {
      tray.setToolTip(trayTooltip(fleet, appStatus));
      tray.setContextMenu(Menu.buildFromTemplate(trayMenu(fleet, actions, appStatus)));
      if (process.platform === 'darwin') tray.setTitle(count > 0 ? String(count) : '');
    }
    app.setBadgeCount(count);
    if (process.platform === 'darwin') app.dock?.setBadge(count > 0 ? String(count) : '');
  };
  render();
  const subscription = events.subscribe((event) => {
    if (event.name === 'attention.changed') fleet = event.payload as FleetAttention;
    else if (event.name === 'app.status') appStatus = event.payload as AppStatus;
    else return;
    render();
  });
  return {
    dispose: () => {
      subscription.dispose();
      tray?.destroy();
    },
  };
}
