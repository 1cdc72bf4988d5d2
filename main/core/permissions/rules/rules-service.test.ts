import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NexusError } from '../../../../shared/errors';
import type { AutoDecision } from '../../../../shared/contract/rules';
import type { AuditEntry } from '../../audit/audit-log';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { Redactor } from '../../redact';
import { openStore } from '../../store/open';
import type { Db } from '../../store/open';
import { PermissionRequests } from '../permission-requests';
import { RulesService } from './rules-service';

const WT = '/workspace/.nexus-worktrees/s';

describe('approval rules at the permission path', () => {
  const dir = tempDir();
  let db: Db;
  let now: number;
  let audit: AuditEntry[];
  let decided: AutoDecision[];
  let replies: string[];
  let rules: RulesService;
  let permissions: PermissionRequests;

  beforeEach(() => {
    db = openStore(join(dir.path, `${Math.random()}.db`));
    db.prepare(
      "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES ('w1', 'web', 'https://x/r.git', 'running', 'v', 'now', 'now')",
    ).run();
    for (const s of ['s1', 's2'])
      db.prepare(
        `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at)
         VALUES (?, 'w1', ?, 'nexus/s', 'running', ?, 'now', 'now')`,
      ).run(s, s, s);
    now = Date.parse('2026-01-01T10:00:00Z');
    audit = [];
    decided = [];
    replies = [];
    const redactor = new Redactor();
    redactor.addSecret('hunter2-very-secret');
    rules = new RulesService({
      db,
      redactor,
      audit: (e) => audit.push(e),
      workspaceIdOf: (ref) => {
        if (ref === 'web' || ref === 'w1') return 'w1';
        throw new NexusError('not_found', `No workspace ${ref}.`);
      },
      workspaceOfSession: (id) => (id === 's1' || id === 's2' ? 'w1' : null),
      changed: () => undefined,
      decided: (d) => decided.push(d),
      now: () => now,
    });
    permissions = new PermissionRequests({
      waitMs: 60_000,
      redactor,
      audit: (e) => audit.push(e),
      sessionInWorkspace: (s, w) => (s === 's1' || s === 's2') && w === 'w1',
      agentOf: () => ({ kind: 'codex', unanswered: 'denied' }),
      changed: () => undefined,
      rules,
      worktreeOf: () => WT,
    });
  });
  afterEach(() => {
    permissions.dispose();
    db.close();
  });
  afterAll(() => dir.remove());

  const ask = (command: string, sessionId = 's1', toolName = 'Bash') =>
    permissions.ask(
      'w1',
      new TextEncoder().encode(
        JSON.stringify({
          sessionId,
          workspaceId: 'w1',
          at: new Date().toISOString(),
          toolName,
          toolInput: { command },
        }),
      ),
      (d) => replies.push(d),
    );

  it('answers a call the default set allows at once, audited and counted with the rule, never held', () => {
    expect(ask('npm test -- --grep hunter2-very-secret')).toBeNull();
    expect(replies).toEqual(['{"behavior":"allow"}']);
    expect(permissions.list()).toEqual([]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ operation: 'permissions.auto', outcome: 'allowed', actor: 'nexus' });
    expect(audit[0]!.detail).toMatch(/allow shell inside:npm test/);
    expect(JSON.stringify([audit, decided])).not.toContain('hunter2-very-secret');
    const mine = rules.decisions('s1');
    expect(mine.saved).toBe(1);
    expect(mine.decisions[0]).toMatchObject({ decision: 'allow', toolName: 'Bash', sessionId: 's1' });
    expect(decided).toHaveLength(1);
    expect(rules.decisions('s2').saved).toBe(0);
    expect(rules.list({}).find((r) => r.id === mine.decisions[0]!.ruleId)?.decided).toBe(1);
  });

  it('decides nothing for a session whose worktree it cannot know: the request is held', () => {
    const blind = new PermissionRequests({ ...permissions['deps'], worktreeOf: () => null });
    const req = blind.ask(
      'w1',
      new TextEncoder().encode(
        JSON.stringify({
          sessionId: 's1',
          workspaceId: 'w1',
          at: new Date().toISOString(),
          toolName: 'Bash',
          toolInput: { command: 'ls' },
        }),
      ),
      (d) => replies.push(d),
    );
    expect(req).not.toBeNull();
    expect(replies).toEqual([]);
    blind.dispose();
  });

  it('still asks for git push with an allow-all rule present, naming the rule that insists', () => {
    rules.set({ scope: 'global', action: 'allow', tool: 'any', pattern: '*' }, 'operator');
    const req = ask('git push origin HEAD');
    expect(req?.askedBy).toMatch(/ask shell git push \(git push and history rewrites\)/);
    expect(replies).toEqual([]);
    expect(rules.draft(permissions.askedOf(req!.id))).toMatchObject({ draft: null });
    expect(ask('python scripts/x.py')).toBeNull();
    expect(replies).toEqual(['{"behavior":"allow"}']);
  });

  it('denies by a workspace deny rule, telling the agent which rule, and only in that workspace', () => {
    rules.set({ scope: 'workspace', workspace: 'web', action: 'deny', tool: 'shell', pattern: 'npm test' }, 'op');
    expect(ask('npm test')).toBeNull();
    expect(JSON.parse(replies[0]!)).toEqual({
      behavior: 'deny',
      message: 'Denied by a rule of the operator in Nexus: deny shell npm test',
    });
    expect(audit.at(-1)).toMatchObject({ outcome: 'denied' });
    expect(() =>
      rules.set({ scope: 'workspace', workspace: 'nope', action: 'deny', tool: 'shell', pattern: 'x' }, 'op'),
    ).toThrow(/No workspace/);
  });

  it('grants "for the session" the narrowest rule, shown first, which ends with the session', () => {
    const req = ask('python scripts/migrate.py --dry-run')!;
    const draft = rules.draft(permissions.askedOf(req.id));
    expect(draft.draft).toEqual({
      tool: 'shell',
      pattern: 'inside:python scripts/migrate.py --dry-run',
      text: 'allow shell inside:python scripts/migrate.py --dry-run',
    });
    const rule = rules.grant(permissions.askedOf(req.id), 'session', 'operator');
    permissions.decide(req.id, { behavior: 'allow' }, 'operator', 'ui');
    expect(rule).toMatchObject({ scope: 'session', sessionId: 's1', source: 'grant', expiresAt: null });
    // Settings lists every rule of every scope; the list for a scope only those in force there.
    expect(rules.list({ every: true }).some((r) => r.id === rule.id)).toBe(true);
    expect(rules.list({}).some((r) => r.id === rule.id)).toBe(false);
    replies.length = 0;
    expect(ask('python scripts/migrate.py --dry-run')).toBeNull();
    expect(replies).toEqual(['{"behavior":"allow"}']);
    expect(ask('python scripts/migrate.py --dry-run', 's2')).not.toBeNull();
    expect(ask('python scripts/other.py')).not.toBeNull();
    // The session is deleted: its row takes the grant, and the service forgets it.
    db.prepare("DELETE FROM sessions WHERE id = 's1'").run();
    rules.sessionGone('s1');
    expect(rules.list({ sessionId: 's1' }).some((r) => r.id === rule.id)).toBe(false);
    expect(rules.list({ every: true }).some((r) => r.id === rule.id)).toBe(false);
    expect(rules.decisions('s1').saved).toBe(0);
  });

  it('grants "in the workspace for 1 h" a rule that runs out after the hour', () => {
    const req = ask('python scripts/x.py')!;
    const rule = rules.grant(permissions.askedOf(req.id), 'workspace_hour', 'operator');
    expect(rule.expiresAt).toBe('2026-01-01T11:00:00.000Z');
    expect(ask('python scripts/x.py', 's2')).toBeNull();
    now += 3_600_001;
    expect(ask('python scripts/x.py', 's2')).not.toBeNull();
  });

  it('refuses a rule that cannot work or a default to remove, storing nothing', () => {
    const before = rules.list({}).length;
    expect(() => rules.set({ scope: 'global', action: 'allow', tool: 'shell', pattern: 're:(' }, 'op')).toThrow(
      NexusError,
    );
    expect(() => rules.set({ scope: 'session', action: 'allow', tool: 'shell', pattern: 'x' }, 'op')).toThrow(
      /names its session/,
    );
    expect(() => rules.remove('default:1')).toThrow(/cannot be removed/);
    expect(rules.list({}).length).toBe(before);
    expect(db.prepare('SELECT COUNT(*) AS n FROM approval_rules').get()).toEqual({ n: 0 });
  });
});
