import { randomUUID } from 'node:crypto';
import { NexusError } from '../../../../shared/errors';
import type { AutoDecision, Rule, RuleGrant, RuleInput } from '../../../../shared/contract/rules';
import type { AuditEntry } from '../../audit';
import type { Redactor } from '../../redact';
import type { Db } from '../../store';
import { defaultRules } from './default-rules';
import { compileRule, evaluate, ruleText, type CompiledRule, type RuleLike } from './evaluate';
import { RuleSet } from './rule-set';
import { draftRule, type Draft } from './rule-draft';
import { RuleStore, type StoredRule } from './rule-store';
import { summaryOf, toolCallOf } from './tool-call';

/** One permission request as the rules see it: raw input (never shown), the session's worktree. */
export interface AskedCall {
  sessionId: string;
  workspaceId: string;
  toolName: string;
  toolInput: unknown;
  worktree: string;
}

/** The rules' answer for one request: decided (with the rule's text for the agent), or asked (and why). */
export type RulesAnswer = { action: 'allow' | 'deny'; rule: string } | { action: 'ask'; askedBy: string | null };

export interface RulesServiceDeps {
  db: Db;
  /** The default set's fetch allow-list (core config `rules.fetchHosts`); unset: the shipped one. */
  fetchHosts?: readonly string[] | undefined;
  redactor: Pick<Redactor, 'text'>;
  audit: (e: AuditEntry) => void;
  /** A workspace's id from its name or id (throws not_found). */
  workspaceIdOf: (ref: string) => string;
  /** The workspace a session belongs to (null: no such session). */
  workspaceOfSession: (sessionId: string) => string | null;
  changed: () => void;
  decided: (d: AutoDecision) => void;
  now?: () => number;
}

type Held = StoredRule | (RuleLike & { note: string; scope: 'default' });
const KEPT_DECISIONS = 50;
const HOUR = 3_600_000;
const MAX_CACHED_SETS = 1000;

/**
 * The approval rules: the shipped defaults plus the operator's rules and grants (SQLite), evaluated for every
 * permission request before the operator sees it (docs/permissions.md). Each automatic decision is audited with
 * the rule that made it, told to the UI (`rules.decided`) and counted per session ("asks saved").
 */
export class RulesService {
  private readonly store: RuleStore;
  private readonly defaults: CompiledRule<Held>[];
  private stored: CompiledRule<Held>[] = [];
  private readonly counts = new Map<string, number>();
  /** Indexed rule sets per workspace and session, until the first of their rules runs out or a rule changes. */
  private readonly sets = new Map<string, { set: RuleSet<Held>; until: number }>();
  private readonly sessions = new Map<string, { saved: number; decisions: AutoDecision[] }>();
  private readonly now: () => number;

  constructor(private readonly deps: RulesServiceDeps) {
    this.store = new RuleStore(deps.db);
    this.defaults = defaultRules(deps.fetchHosts).map((r) => compileRule<Held>({ ...r, scope: 'default' }));
    this.now = deps.now ?? Date.now;
    this.reload();
  }

  private reload(): void {
    this.store.removeExpired(new Date(this.now()).toISOString());
    this.stored = this.store.all().map((r) => compileRule<Held>(r));
  }

  /** The rules that hold for a request of `sessionId` in `workspaceId` now, indexed once per scope until a change. */
  private inForce(workspaceId: string | null, sessionId: string | null): RuleSet<Held> {
    const key = `${workspaceId ?? ''}\n${sessionId ?? ''}`;
    const now = this.now();
    const cached = this.sets.get(key);
    if (cached && now < cached.until) return cached.set;
    const at = new Date(now).toISOString();
    const own = this.stored.filter((c) => {
      const r = c.rule as StoredRule;
      if (r.expiresAt !== null && r.expiresAt <= at) return false;
      return (
        r.scope === 'global' || (r.scope === 'workspace' ? r.workspaceId === workspaceId : r.sessionId === sessionId)
      );
    });
    const ends = own.map((c) => (c.rule as StoredRule).expiresAt).filter((e): e is string => e !== null);
    const set = new RuleSet([...this.defaults, ...own]);
    if (this.sets.size > MAX_CACHED_SETS) this.sets.clear();
    this.sets.set(key, { set, until: ends.length ? Math.min(...ends.map((e) => Date.parse(e))) : Infinity });
    return set;
  }

  list(input: { workspace?: string | undefined; sessionId?: string | undefined; every?: boolean | undefined }): Rule[] {
    if (input.every) {
      const at = new Date(this.now()).toISOString();
      const live = this.stored.filter((c) => {
        const e = (c.rule as StoredRule).expiresAt;
        return e === null || e > at;
      });
      return [...this.defaults, ...live].map((c) => this.shown(c.rule));
    }
    const ws = input.workspace ? this.deps.workspaceIdOf(input.workspace) : null;
    return this.inForce(ws, input.sessionId ?? null).rules.map((c) => this.shown(c.rule));
  }

  private shown(r: Held): Rule {
    const s = r.scope === 'default' ? null : (r as StoredRule);
    return {
      id: r.id,
      scope: r.scope,
      workspaceId: s?.workspaceId ?? null,
      sessionId: s?.sessionId ?? null,
      action: r.action,
      tool: r.tool,
      pattern: r.pattern,
      note: r.note,
      source: s ? s.source : 'default',
      createdAt: s?.createdAt ?? null,
      expiresAt: s?.expiresAt ?? null,
      decided: this.counts.get(r.id) ?? 0,
    };
  }

  /** Adds an operator's rule (the caller's class was checked by the contract: operator only). */
  set(input: RuleInput, actor: string, source: StoredRule['source'] = 'operator'): Rule {
    let workspaceId: string | null = null;
    let sessionId: string | null = null;
    if (input.scope === 'workspace') {
      if (!input.workspace) throw new NexusError('bad_request', 'A workspace rule names its workspace.');
      workspaceId = this.deps.workspaceIdOf(input.workspace);
    } else if (input.scope === 'session') {
      if (!input.sessionId) throw new NexusError('bad_request', 'A session rule names its session.');
      workspaceId = this.deps.workspaceOfSession(input.sessionId);
      if (!workspaceId) throw new NexusError('not_found', `No session ${input.sessionId}.`);
      sessionId = input.sessionId;
    }
    const rule: StoredRule = {
      id: randomUUID(),
      scope: input.scope,
      workspaceId,
      sessionId,
      action: input.action,
      tool: input.tool,
      pattern: input.pattern,
      note: input.note ?? null,
      source,
      createdBy: actor,
      createdAt: new Date(this.now()).toISOString(),
      expiresAt: input.expiresInMinutes ? new Date(this.now() + input.expiresInMinutes * 60_000).toISOString() : null,
    };
    const compiled = compileRule<Held>(rule); // a pattern that cannot work is refused before it is stored
    this.store.insert(rule);
    this.stored.push(compiled);
    this.sets.clear();
    this.deps.changed();
    return this.shown(rule);
  }

  remove(id: string): boolean {
    if (id.startsWith('default:'))
      throw new NexusError('bad_request', 'The shipped default rules cannot be removed; add a deny or ask rule.');
    const removed = this.store.remove(id);
    if (removed) {
      this.stored = this.stored.filter((c) => c.rule.id !== id);
      this.sets.clear();
      this.deps.changed();
    }
    return removed;
  }

  /** The rules' answer for one permission request; an automatic one is audited, counted and told. */
  decide(asked: AskedCall): RulesAnswer {
    const call = toolCallOf(asked.toolName, asked.toolInput, asked.worktree);
    const verdict = evaluate(this.inForce(asked.workspaceId, asked.sessionId), call);
    if (verdict.action === 'ask') return { action: 'ask', askedBy: verdict.rule ? this.label(verdict.rule) : null };
    const rule = verdict.rule!;
    this.counts.set(rule.id, (this.counts.get(rule.id) ?? 0) + 1);
    const decision: AutoDecision = {
      at: new Date(this.now()).toISOString(),
      sessionId: asked.sessionId,
      workspaceId: asked.workspaceId,
      toolName: asked.toolName,
      summary: this.deps.redactor.text(summaryOf(call)),
      decision: verdict.action,
      ruleId: rule.id,
      rule: this.label(rule),
    };
    const s = this.sessions.get(asked.sessionId) ?? { saved: 0, decisions: [] };
    s.saved++;
    s.decisions.unshift(decision);
    s.decisions.length = Math.min(s.decisions.length, KEPT_DECISIONS);
    this.sessions.set(asked.sessionId, s);
    this.deps.audit({
      actor: 'nexus',
      transport: 'rules',
      operation: 'permissions.auto',
      outcome: verdict.action === 'allow' ? 'allowed' : 'denied',
      durationMs: 0,
      detail: this.deps.redactor.text(
        `session:${asked.sessionId} tool ${asked.toolName} rule ${rule.id}: ${decision.rule}`,
      ),
    });
    this.deps.decided(decision);
    return { action: verdict.action, rule: decision.rule };
  }

  /** "allow shell npm test (the repo's test … commands)": a rule as the operator reads it. */
  private label(r: Held): string {
    const text = ruleText(r);
    const short = text.length > 80 ? `${text.slice(0, 79)}…` : text;
    return r.note ? `${short} (${r.note})` : short;
  }

  /** The narrowest rule a grant from this request would save, or why there is none. */
  draft(asked: AskedCall): Draft {
    const call = toolCallOf(asked.toolName, asked.toolInput, asked.worktree);
    const verdict = evaluate(this.inForce(asked.workspaceId, asked.sessionId), call);
    return draftRule(call, verdict.action === 'ask' && verdict.rule ? this.label(verdict.rule) : null);
  }

  /** Saves the narrowest rule for `grant` (the request itself is allowed by the caller). */
  grant(asked: AskedCall, grant: RuleGrant, actor: string): Rule {
    const d = this.draft(asked);
    if (!d.draft) throw new NexusError('conflict', d.reason);
    return this.set(
      {
        scope: grant === 'session' ? 'session' : 'workspace',
        ...(grant === 'session' ? { sessionId: asked.sessionId } : { workspace: asked.workspaceId }),
        action: 'allow',
        tool: d.draft.tool,
        pattern: d.draft.pattern,
        note: `granted from a request of session ${asked.sessionId}`,
        ...(grant === 'workspace_hour' ? { expiresInMinutes: HOUR / 60_000 } : {}),
      },
      actor,
      'grant',
    );
  }

  /** A session's automatic decisions, newest first, and how many asks they saved (since core started). */
  decisions(sessionId: string): { saved: number; decisions: AutoDecision[] } {
    const s = this.sessions.get(sessionId);
    return { saved: s?.saved ?? 0, decisions: s ? [...s.decisions] : [] };
  }

  /** A deleted session's grants went with its row (ON DELETE CASCADE): forget them here too. */
  sessionGone(sessionId: string): void {
    this.sessions.delete(sessionId);
    const before = this.stored.length;
    this.stored = this.stored.filter((c) => (c.rule as StoredRule).sessionId !== sessionId);
    if (this.stored.length === before) return;
    this.sets.clear();
    this.deps.changed();
  }
}
