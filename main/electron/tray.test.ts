import { afterEach, describe, expect, it, vi } from 'vitest';
import { rollUp, type SessionAttention } from '../../shared/attention';
import type { AppStatus } from '../../shared/contract';
import { EventBus } from '../core/events';
import { Redactor } from '../core/redact';

vi.mock('electron', () => import('../../test/fakes/electron'));
const fake = await import('../../test/fakes/electron');
const { startTray, trayMenu, trayTooltip } = await import('./tray');

const waiting = (id: string, reason: string): SessionAttention => ({
  sessionId: id,
  sessionName: 'fix-auth',
  workspaceName: 'api',
  level: 'needs_you',
  reason,
  since: '2026-11-29T10:00:00Z',
});
const fleetOf = (...items: SessionAttention[]) => rollUp(items, { memories: 0, skills: 0 });
const notSetUp: AppStatus = {
  vault: { state: 'uninitialized', reason: 'The vault has not been set up yet.', mode: null },
  docker: { state: 'available', reason: 'ok' },
  nats: { state: 'running', reason: 'ok' },
};
type Item = { label?: string; click?: () => void; enabled?: boolean };

describe('tray', () => {
  const actions = { open: vi.fn(), openSession: vi.fn(), quit: vi.fn() };
  afterEach(() => vi.clearAllMocks());

  it('lists what needs you first, each item opening its session, then Open and Quit', () => {
    const menu = trayMenu(fleetOf(waiting('s1', 'Permission needed: Bash')), actions) as Item[];
    expect(menu[0]?.label).toBe('1 needs you');
    expect(menu[1]?.label).toBe('api · fix-auth — Permission needed: Bash');
    menu[1]?.click?.();
    expect(actions.openSession).toHaveBeenCalledWith('s1');
    expect(menu.map((m) => m.label).slice(-2)).toEqual(['Open Nexus', 'Quit']);
    menu.at(-1)?.click?.();
    expect(actions.quit).toHaveBeenCalled();
  });

  it('says nothing needs you when the fleet is calm', () => {
    expect((trayMenu(fleetOf(), actions) as Item[])[0]).toMatchObject({ label: 'Nothing needs you', enabled: false });
    expect(trayTooltip(fleetOf())).toBe('Nexus');
  });

  it('follows attention.changed: tooltip count, menu and badge', () => {
    const events = new EventBus(new Redactor());
    const handle = startTray(events, '/icon.png', actions);
    const tray = fake.Tray.created.at(-1)!;
    events.emit(
      'attention.changed',
      fleetOf(waiting('s1', 'Permission needed: Bash'), waiting('s2', 'Waiting for your input')),
    );
    expect(tray.tooltip).toBe('Nexus — 2 need you');
    expect(fake.fakeApp.badgeCount).toBe(2);
    void handle.dispose();
    expect(tray.destroyed).toBe(true);
  });

  it('counts a vault that is not set up, from app.status, as the Overview does; its item opens the app', () => {
    const events = new EventBus(new Redactor());
    const handle = startTray(events, '/icon.png', actions);
    const tray = fake.Tray.created.at(-1)!;
    events.emit('app.status', notSetUp);
    expect(tray.tooltip).toBe('Nexus — 1 needs you');
    expect(fake.fakeApp.badgeCount).toBe(1);
    const menu = trayMenu(null, actions, notSetUp) as Item[];
    expect(menu[1]?.label).toBe('Vault not set up: The vault has not been set up yet.');
    menu[1]?.click?.();
    expect(actions.open).toHaveBeenCalled();
    void handle.dispose();
  });

  it('keeps working without a tray (GNOME without AppIndicator): the badge still follows', () => {
    fake.Tray.failNext = true;
    const events = new EventBus(new Redactor());
    const before = fake.Tray.created.length;
    const handle = startTray(events, '/icon.png', actions);
    expect(fake.Tray.created.length).toBe(before);
    events.emit('attention.changed', fleetOf(waiting('s9', 'Permission needed')));
    expect(fake.fakeApp.badgeCount).toBe(1);
    void handle.dispose();
  });
});
