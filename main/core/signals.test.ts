import { describe, expect, it, vi } from 'vitest';
import { EventBus } from './events';
import { Redactor } from './redact';
import { Signals } from './signals';

const quietLog = () => ({ warn: vi.fn() });

describe('core-internal signals', () => {
  it('still tells the other listeners when one throws, and logs the failure with the signal name', () => {
    const log = quietLog();
    const signals = new Signals<{ started: { workspaceId: string } }>(log);
    const heard: string[] = [];
    signals.on('started', () => {
      throw new Error('listener broke');
    });
    signals.on('started', (e) => heard.push(e.workspaceId));
    signals.emit('started', { workspaceId: 'w1' });
    expect(heard).toEqual(['w1']);
    expect(log.warn).toHaveBeenCalledWith(
      'a listener failed',
      expect.objectContaining({ signal: 'started', error: expect.objectContaining({ message: 'listener broke' }) }),
    );
  });

  it('stops telling a listener once it is disposed', () => {
    const signals = new Signals<{ removed: { workspaceId: string } }>(quietLog());
    const heard: string[] = [];
    const sub = signals.on('removed', (e) => heard.push(e.workspaceId));
    signals.emit('removed', { workspaceId: 'a' });
    sub.dispose();
    signals.emit('removed', { workspaceId: 'b' });
    expect(heard).toEqual(['a']);
  });
});

describe('the event bus', () => {
  it('delivers to every subscriber when one throws, and logs which event it failed on', () => {
    const log = quietLog();
    const bus = new EventBus(new Redactor(), log);
    const names: string[] = [];
    bus.subscribe(() => {
      throw new Error('subscriber broke');
    });
    bus.subscribe((m) => names.push(m.name));
    bus.emit('sessions.changed', { session: null, removedId: 's1' });
    expect(names).toEqual(['sessions.changed']);
    expect(log.warn).toHaveBeenCalledWith(
      'an event subscriber failed',
      expect.objectContaining({ event: 'sessions.changed' }),
    );
  });
});
