import type { RuleAction, RuleTool } from '../../../../shared/contract/rules';
import { compile, type Matcher } from './matcher';

/** What the engine needs of a rule (a stored one, a default, or one in a benchmark). */
export interface RuleLike {
  id: string;
  action: RuleAction;
  tool: RuleTool;
  pattern: string;
}

export interface CompiledRule<R extends RuleLike = RuleLike> {
  rule: R;
  matcher: Matcher;
}

export const compileRule = <R extends RuleLike>(rule: R): CompiledRule<R> => ({
  rule,
  matcher: compile(rule.tool, rule.pattern),
});
