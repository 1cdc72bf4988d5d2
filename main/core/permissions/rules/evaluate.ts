import type { RuleAction } from '../../../../shared/contract/rules';
import type { CompiledRule, RuleLike } from './compiled-rule';
import { RuleSet } from './rule-set';
import type { ToolCall } from './tool-call';

export { compileRule, type CompiledRule, type RuleLike } from './compiled-rule';

/** The rules' answer: allow or deny without the operator, or ask; `rule` is the one that decided (null: none did). */
export interface Verdict<R extends RuleLike = RuleLike> {
  action: RuleAction;
  rule: R | null;
}

/**
 * The engine: a deny rule that matches wins, then an ask rule (so "always ask" beats any allow, an allow-all
 * included), then allow; a call no rule decides is asked. A shell call is allowed only when every one of its
 * simple commands is matched by an allow rule (a command the rules cannot see through only by `*`), while one
 * matching part is enough for ask and deny. Pure and synchronous: no model, no I/O.
 */
export function evaluate<R extends RuleLike>(
  rules: readonly CompiledRule<R>[] | RuleSet<R>,
  call: ToolCall,
): Verdict<R> {
  const set = rules instanceof RuleSet ? rules : new RuleSet(rules);
  for (const action of ['deny', 'ask'] as const) {
    // Ask and deny: the call as a whole, or any one of its simple commands (opaque ones included).
    let hit = set.first(action, call);
    for (const part of call.parts) hit ??= set.first(action, call, part, true);
    if (hit) return { action, rule: hit.rule };
  }
  if (call.tool !== 'shell') {
    const c = set.first('allow', call);
    return c ? { action: 'allow', rule: c.rule } : { action: 'ask', rule: null };
  }
  if (call.parts.length === 0) return { action: 'ask', rule: null };
  let first: R | null = null;
  for (const part of call.parts) {
    const c = set.first('allow', call, part);
    if (!c) return { action: 'ask', rule: null };
    first ??= c.rule;
  }
  return { action: 'allow', rule: first };
}

/** A rule as the operator reads it: "allow shell npm test". */
export const ruleText = (r: Pick<RuleLike, 'action' | 'tool' | 'pattern'>): string =>
  `${r.action} ${r.tool} ${r.pattern}`;
