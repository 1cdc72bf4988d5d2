import { describe, expect, it } from 'vitest';
import { gateOutput, isToolGate } from './event';

const permission = (decision: Record<string, unknown>): string =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

describe("a permission gate (NEXUS_HOOK_GATE, set by a gated kind's launch)", () => {
  it("gates every tool call of the gate's event but Nexus's own platform tools, and nothing without a gate", () => {
    const call = { hook_event_name: 'PreToolUse', tool_name: 'Bash' };
    expect(isToolGate(call, 'PreToolUse')).toBe(true);
    expect(isToolGate(call, undefined)).toBe(false);
    expect(isToolGate({ ...call, tool_name: 'mcp__nexus__memory_propose' }, 'PreToolUse')).toBe(false);
    expect(isToolGate({ ...call, tool_name: 'mcp__nexus-delegated__list_sessions' }, 'PreToolUse')).toBe(false);
    expect(isToolGate({ ...call, tool_name: 'mcp__other__x' }, 'PreToolUse')).toBe(true);
    expect(isToolGate({ ...call, hook_event_name: 'PostToolUse' }, 'PreToolUse')).toBe(false);
  });

  it('lets an allowed call run, hands a deny note to the model, and denies when nobody decided', () => {
    expect(gateOutput(permission({ behavior: 'allow' }))).toBe('');
    const denied = JSON.parse(gateOutput(permission({ behavior: 'deny', message: 'use ls' }))) as {
      hookSpecificOutput: Record<string, string>;
    };
    expect(denied.hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'Denied by the operator in Nexus: use ls',
    });
    for (const nothing of ['', 'not json', permission({ behavior: 'maybe' })])
      expect(JSON.parse(gateOutput(nothing))).toMatchObject({
        hookSpecificOutput: { permissionDecision: 'deny' },
      });
  });
});
