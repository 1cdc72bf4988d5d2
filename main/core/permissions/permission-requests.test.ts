import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../audit/audit-log';
import { Redactor } from '../redact';
import { PermissionRequests, type PendingPermission } from './permission-requests';

function rig(waitMs = 60_000) {
  const redactor = new Redactor();
  redactor.addSecret('hunter2-very-secret');
  const audit: AuditEntry[] = [];
  const seen: PendingPermission[][] = [];
  const replies: string[] = [];
  const p = new PermissionRequests({
    waitMs,
    redactor,
    audit: (e) => audit.push(e),
    sessionInWorkspace: (s, w) => (s === 's1' || s === 'codex1') && w === 'ws1',
    agentOf: (s) =>
      s === 'codex1' ? { kind: 'codex', unanswered: 'denied' } : { kind: 'claude', unanswered: 'stays_in_terminal' },
    changed: (l) => seen.push(l),
  });
  const ask = (body: Record<string, unknown>, ws = 'ws1') =>
    p.ask(ws, new TextEncoder().encode(JSON.stringify(body)), (d) => replies.push(d));
  const bash = {
    sessionId: 's1',
    workspaceId: 'ws1',
    at: new Date().toISOString(),
    toolName: 'Bash',
    toolInput: { command: 'echo hunter2-very-secret > /tmp/x' },
  };
  return { p, ask, bash, audit, seen, replies };
}

describe('PermissionRequests', () => {
  it('holds a request with its tool input redacted and tells the UI', () => {
    const r = rig();
    const req = r.ask(r.bash);
    expect(req?.toolName).toBe('Bash');
    expect(JSON.stringify(req?.toolInput)).not.toContain('hunter2-very-secret');
    expect(r.p.list('s1')).toHaveLength(1);
    expect(r.seen.at(-1)).toHaveLength(1);
    expect(r.replies).toEqual([]);
  });

  it("names the asking session's agent, so the operator reads what an unanswered request leads to", () => {
    const r = rig();
    expect(r.ask(r.bash)?.agent).toBe('claude');
    expect(r.ask({ ...r.bash, sessionId: 'codex1' })?.agent).toBe('codex');
    expect(r.p.list('codex1').map((q) => q.agent)).toEqual(['codex']);
  });

  it('answers allow, deny and deny with a note, and audits each', () => {
    const r = rig();
    for (const d of [
      { behavior: 'allow' },
      { behavior: 'deny' },
      { behavior: 'deny', message: 'use rg instead' },
    ] as const) {
      const req = r.ask(r.bash);
      r.p.decide(req?.id ?? '', d, 'operator', 'ui');
    }
    expect(r.replies.map((x) => JSON.parse(x) as unknown)).toEqual([
      { behavior: 'allow' },
      { behavior: 'deny' },
      { behavior: 'deny', message: 'use rg instead' },
    ]);
    expect(r.audit.map((a) => a.outcome)).toEqual(['allowed', 'denied', 'denied_with_note']);
    expect(r.audit[0]).toMatchObject({
      actor: 'operator',
      operation: 'permissions.decide',
      detail: 'session s1, tool Bash',
    });
    expect(r.p.list()).toEqual([]);
  });

  it('refuses a second decision on the same request', () => {
    const r = rig();
    const req = r.ask(r.bash);
    r.p.decide(req?.id ?? '', { behavior: 'allow' }, 'operator', 'ui');
    expect(() => r.p.decide(req?.id ?? '', { behavior: 'deny' }, 'operator', 'ui')).toThrow(/No pending/);
    expect(r.replies).toHaveLength(1);
  });

  it('steps aside with an empty reply when nobody decides in time', async () => {
    const r = rig(30);
    r.ask(r.bash);
    await expect.poll(() => r.replies).toEqual(['']);
    expect(r.p.list()).toEqual([]);
    expect(r.audit).toEqual([]);
  });

  it("ignores a request naming another workspace's session or arriving on another workspace's subject", () => {
    const r = rig();
    expect(r.ask({ ...r.bash, sessionId: 's2' })).toBeNull();
    expect(r.ask(r.bash, 'ws2')).toBeNull();
    expect(r.ask({ nonsense: true })).toBeNull();
    expect(r.p.list()).toEqual([]);
    expect(r.replies).toEqual(['', '', '']);
  });

  it('takes the same question asked again as one request, answered on the newest asker’s reply', () => {
    const r = rig();
    const body = new TextEncoder().encode(JSON.stringify({ ...r.bash, askId: 'ab12cd34ef56ab78' }));
    const first: string[] = [];
    const second: string[] = [];
    const a = r.p.ask('ws1', body, (d) => first.push(d));
    const b = r.p.ask('ws1', body, (d) => second.push(d));
    expect(b?.id).toBe(a?.id);
    expect(r.p.list('s1')).toHaveLength(1);
    r.p.decide(a?.id ?? '', { behavior: 'allow' }, 'operator', 'ui');
    expect(first).toEqual([]);
    expect(second).toEqual([JSON.stringify({ behavior: 'allow' })]);
  });

  it('holds a question first asked of a core that died only as long as its asker still waits', () => {
    const r = rig(60_000);
    const at = new Date(Date.now() - 50_000).toISOString();
    const req = r.ask({ ...r.bash, at, askId: '0123456789abcdef' });
    const left = Date.parse(req?.expiresAt ?? '') - Date.now();
    expect(left).toBeGreaterThan(8_000);
    expect(left).toBeLessThanOrEqual(10_000);
  });
});
