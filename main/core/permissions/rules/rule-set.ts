import type { RuleAction } from '../../../../shared/contract/rules';
import type { CompiledRule, RuleLike } from './compiled-rule';
import type { ToolCall } from './tool-call';
import type { ShellPart } from './shell-command';

interface Entry<R extends RuleLike> {
  c: CompiledRule<R>;
  order: number;
}
interface Lists<R extends RuleLike> {
  /** Shell rules by the command word they start with. */
  byHead: Map<string, Entry<R>[]>;
  /** Every other rule of the tool (globs without a fixed word, regexes, `*`). */
  rest: Entry<R>[];
}

/**
 * Rules compiled and indexed once (by action, tool and, for shell rules, their command word), so a request looks
 * only at the rules that could match it: with 500 rules of the operator's, a call is checked against a handful.
 * Where several match, the first in the list given wins, as in a plain scan.
 */
export class RuleSet<R extends RuleLike = RuleLike> {
  private readonly lists = new Map<string, Lists<R>>();

  constructor(readonly rules: readonly CompiledRule<R>[]) {
    rules.forEach((c, order) => {
      const key = `${c.rule.action}:${c.rule.tool}`;
      const l: Lists<R> = this.lists.get(key) ?? { byHead: new Map<string, Entry<R>[]>(), rest: [] };
      this.lists.set(key, l);
      const head = c.matcher.head;
      if (head === undefined) l.rest.push({ c, order });
      else l.byHead.set(head, [...(l.byHead.get(head) ?? []), { c, order }]);
    });
  }

  /**
   * The first rule of `action` matching the call as a whole or, with `part`, that simple command; `seeThrough`:
   * an opaque part counts as matched (ask and deny read its text; only an allow needs to see through it).
   */
  first(action: RuleAction, call: ToolCall, part?: ShellPart, seeThrough = false): CompiledRule<R> | null {
    let best: Entry<R> | null = null;
    const own = this.lists.get(`${action}:${call.tool}`);
    const any = this.lists.get(`${action}:any`);
    const head = part ? (part.words[0] ?? '').toLowerCase() : '';
    for (const l of [own, any]) {
      if (!l) continue;
      if (part) {
        const byHead = l.byHead.get(head);
        if (byHead)
          for (const e of byHead) if (!best || e.order < best.order) best = this.hit(e, call, part, seeThrough) ?? best;
      }
      for (const e of l.rest) if (!best || e.order < best.order) best = this.hit(e, call, part, seeThrough) ?? best;
    }
    return best?.c ?? null;
  }

  private hit(e: Entry<R>, call: ToolCall, part: ShellPart | undefined, seeThrough: boolean): Entry<R> | null {
    const m = e.c.matcher;
    if (!part) return m.call(call) ? e : null;
    return m.part(part, call) && (seeThrough || !part.opaque || m.wildcard === true) ? e : null;
  }
}
