import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../test/fakes/electron'));
const fake = await import('../../test/fakes/electron');
const { ElectronNotifier } = await import('./ports');
const { routeFor } = await import('./navigation');

describe('native notifications', () => {
  it('shows the reason and focuses the session on click', () => {
    const onClick = vi.fn();
    new ElectronNotifier(onClick).notify({
      title: 'Nexus needs you',
      body: 'Permission needed: Bash — api · fix-auth',
      target: 'session:s1',
    });
    const shown = fake.Notification.shown.at(-1)!;
    expect(shown.options).toMatchObject({ title: 'Nexus needs you', body: 'Permission needed: Bash — api · fix-auth' });
    shown.click();
    expect(onClick).toHaveBeenCalledWith('session:s1');
  });

  it('maps only well-formed session targets to a route', () => {
    expect(routeFor('session:abc-123')).toBe('#/sessions/abc-123');
    expect(routeFor("session:x'); alert(1); ('")).toBeNull();
    expect(routeFor(undefined)).toBeNull();
  });
});
