import { describe, expect, it } from 'vitest';
import type { Logger } from '../../log';
import type { HookEvent } from '../../platform/platform-service';
import { forwardHookEvents } from './hook-subscriber';

const log: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => log };

function rig() {
  let handler: (e: HookEvent) => void = () => undefined;
  const applied: { workspaceId: string; name: string; seq?: number }[] = [];
  forwardHookEvents(
    { onHookEvent: (h) => ((handler = h), { dispose: () => undefined }) },
    {
      applyHook: (workspaceId, m) => {
        applied.push({ workspaceId, name: m.event.hook_event_name, seq: m.seq });
        return null;
      },
      noteHookGap: () => undefined,
    },
    log,
  );
  const event = (workspaceId: string, name: string, extra: Record<string, unknown>): void =>
    handler({
      workspaceId,
      event: { sessionId: 's1', workspaceId, at: new Date().toISOString(), event: { hook_event_name: name }, ...extra },
    });
  return { applied, event };
}

describe('hook events the relay sent again', () => {
  it('applies an event once when the relay sends it again because core’s answer did not reach it', () => {
    const { applied, event } = rig();
    event('w1', 'PreToolUse', { relayRun: 'aaa', seq: 1 });
    event('w1', 'Stop', { relayRun: 'aaa', seq: 2 });
    event('w1', 'PreToolUse', { relayRun: 'aaa', seq: 1 });
    expect(applied.map((a) => a.name)).toEqual(['PreToolUse', 'Stop']);
  });

  it('applies the same count from another relay run (a relay started again counts from 1) or another workspace', () => {
    const { applied, event } = rig();
    event('w1', 'PreToolUse', { relayRun: 'aaa', seq: 1 });
    event('w1', 'Stop', { relayRun: 'bbb', seq: 1 });
    event('w2', 'Stop', { relayRun: 'aaa', seq: 1 });
    expect(applied).toHaveLength(3);
  });

  it('applies every event that carries no relay run (the hook command published it itself)', () => {
    const { applied, event } = rig();
    event('w1', 'SessionStart', {});
    event('w1', 'SessionStart', {});
    expect(applied).toHaveLength(2);
  });
});
