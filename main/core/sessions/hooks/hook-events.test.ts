import { describe, expect, it } from 'vitest';
import { permissionReason } from '../../../../shared/attention';
import { agentStateFromHook, HookMessage, keepNamedTool } from './hook-events';

const ev = (hook_event_name: string, extra: Record<string, string> = {}) => ({ hook_event_name, ...extra });

describe('agentStateFromHook', () => {
  it.each([
    ['SessionStart', {}, 'idle'],
    ['UserPromptSubmit', {}, 'working'],
    ['PreToolUse', {}, 'working'],
    ['PostToolUse', {}, 'working'],
    ['PermissionRequest', {}, 'waiting_permission'],
    [
      'Notification',
      { notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' },
      'waiting_permission',
    ],
    ['Notification', { notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }, 'idle'],
    ['Notification', { notification_type: 'elicitation_dialog' }, 'waiting_input'],
    ['Elicitation', {}, 'waiting_input'],
    ['Stop', {}, 'idle'],
    ['SessionEnd', { reason: 'logout' }, 'exited'],
  ] as const)('maps %s %j to %s', (name, extra, state) => {
    expect(agentStateFromHook(ev(name, extra))?.agentState).toBe(state);
  });

  it("carries the notification's message", () => {
    expect(
      agentStateFromHook(
        ev('Notification', {
          notification_type: 'permission_prompt',
          message: 'Claude needs your permission to use Bash',
        }),
      )?.message,
    ).toBe('Claude needs your permission to use Bash');
  });

  it('names the tool from the PermissionRequest event, in the words the later notification uses', () => {
    const asked = agentStateFromHook(ev('PermissionRequest', { tool_name: 'Bash' }), 'Claude')?.message ?? null;
    const notified = agentStateFromHook(
      ev('Notification', {
        notification_type: 'permission_prompt',
        message: 'Claude needs your permission to use Bash',
      }),
    )?.message;
    expect(asked).toBe(notified);
    expect(permissionReason(asked)).toBe('Permission needed: Bash');
  });

  it('keeps the named tool when the notification of the same wait names none', () => {
    const asked = { agentState: 'waiting_permission' as const, message: 'Claude needs your permission to use Bash' };
    const vague = agentStateFromHook(
      ev('Notification', { notification_type: 'permission_prompt', message: 'Claude needs your permission' }),
    );
    expect(keepNamedTool(asked, vague!).message).toBe('Claude needs your permission to use Bash');
    // A new wait, or one that names its own tool, says what it says.
    expect(keepNamedTool({ agentState: 'working', message: null }, vague!).message).toBe(
      'Claude needs your permission',
    );
    const other = agentStateFromHook(ev('PermissionRequest', { tool_name: 'Write' }), 'Claude');
    expect(keepNamedTool(asked, other!).message).toBe('Claude needs your permission to use Write');
  });

  it('says why a session ended', () => {
    expect(agentStateFromHook(ev('SessionEnd', { reason: 'clear' }))?.message).toBe('Session ended (clear)');
  });

  it('leaves the state alone for events that say nothing about waiting or working', () => {
    expect(agentStateFromHook(ev('Notification', { notification_type: 'auth_success' }))).toBeNull();
    expect(agentStateFromHook(ev('TaskCreated'))).toBeNull();
  });

  it.each(['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'])(
    'clears a wait when the person answers in the terminal (%s follows)',
    (next) => {
      for (const wait of [
        ev('PermissionRequest'),
        ev('Notification', { notification_type: 'permission_prompt' }),
        ev('Notification', { notification_type: 'elicitation_dialog' }),
      ]) {
        expect(agentStateFromHook(wait)?.agentState).toMatch(/^waiting_/);
        expect(agentStateFromHook(ev(next))?.agentState).toMatch(/^(working|idle)$/);
      }
    },
  );

  it('treats an open prompt (idle_prompt) as idle, never as needing the person', () => {
    const change = agentStateFromHook(ev('Notification', { notification_type: 'idle_prompt', message: 'waiting' }));
    expect(change).toEqual({ agentState: 'idle', message: null });
  });

  it('treats an elicitation dialog as needing the person', () => {
    expect(agentStateFromHook(ev('Notification', { notification_type: 'elicitation_dialog' }))?.agentState).toBe(
      'waiting_input',
    );
  });

  it('goes back to working after a permission wait once the person answered', () => {
    expect(agentStateFromHook(ev('Notification', { notification_type: 'permission_prompt' }))?.agentState).toBe(
      'waiting_permission',
    );
    expect(agentStateFromHook(ev('PostToolUse'))?.agentState).toBe('working');
  });

  it('rejects a hook message without a session or time', () => {
    expect(HookMessage.safeParse({ workspaceId: 'w', at: new Date().toISOString(), event: ev('Stop') }).success).toBe(
      false,
    );
    expect(
      HookMessage.safeParse({ sessionId: 's', workspaceId: 'w', at: 'yesterday', event: ev('Stop') }).success,
    ).toBe(false);
    expect(
      HookMessage.safeParse({ sessionId: 's', workspaceId: 'w', at: new Date().toISOString(), event: ev('Stop') })
        .success,
    ).toBe(true);
  });
});
