import { describe, expect, it } from 'vitest';
import { codexGateOutput, isCodexGate } from './event';

const permission = (decision: Record<string, unknown>): string =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

describe("a Codex session's PreToolUse gate", () => {
  it("gates every tool call of a Codex session but Nexus's own platform tools, and nothing of Claude's", () => {
    const call = { hook_event_name: 'PreToolUse', tool_name: 'Bash' };
    expect(isCodexGate(call, 'codex')).toBe(true);
    expect(isCodexGate(call, undefined)).toBe(false);
    expect(isCodexGate({ ...call, tool_name: 'mcp__nexus__memory_propose' }, 'codex')).toBe(false);
    expect(isCodexGate({ ...call, tool_name: 'mcp__nexus-fleet__list_sessions' }, 'codex')).toBe(false);
    expect(isCodexGate({ ...call, tool_name: 'mcp__other__x' }, 'codex')).toBe(true);
    expect(isCodexGate({ ...call, hook_event_name: 'PostToolUse' }, 'codex')).toBe(false);
  });

  it('lets an allowed call run, hands a deny note to the model, and denies when nobody decided', () => {
    expect(codexGateOutput(permission({ behavior: 'allow' }))).toBe('');
    const denied = JSON.parse(codexGateOutput(permission({ behavior: 'deny', message: 'use ls' }))) as {
      hookSpecificOutput: Record<string, string>;
    };
    expect(denied.hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'Denied by the operator in Nexus: use ls',
    });
    for (const nothing of ['', 'not json', permission({ behavior: 'maybe' })])
      expect(JSON.parse(codexGateOutput(nothing))).toMatchObject({
        hookSpecificOutput: { permissionDecision: 'deny' },
      });
  });
});
