import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from './default-rules';
import { compileRule, evaluate, ruleText } from './evaluate';
import { toolCallOf } from './tool-call';
import { CORPUS, CORPUS_WORKTREE, type CorpusLabel } from '../../../../test/fixtures/rules-corpus/tool-call-corpus';

const defaults = DEFAULT_RULES.map(compileRule);
const verdicts = CORPUS.map((c) => ({
  ...c,
  verdict: evaluate(defaults, toolCallOf(c.toolName, c.input, CORPUS_WORKTREE)),
}));
const show = (v: (typeof verdicts)[number]): string =>
  `${v.label} ${v.toolName} ${JSON.stringify(v.input)} → ${v.verdict.action} by ${v.verdict.rule ? ruleText(v.verdict.rule) : 'no rule'}`;

describe('the labelled corpus through the default set', () => {
  it('holds at least 200 calls of shell, file and fetch tools in every label', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(200);
    for (const label of ['safe', 'risky', 'irreversible'] as CorpusLabel[])
      expect(CORPUS.filter((c) => c.label === label).length).toBeGreaterThan(20);
    const tools = new Set(verdicts.map((v) => toolCallOf(v.toolName, v.input, CORPUS_WORKTREE).tool));
    for (const t of ['shell', 'read', 'edit', 'fetch']) expect(tools).toContain(t);
  });

  it('auto-allows no irreversible call', () => {
    expect(verdicts.filter((v) => v.label === 'irreversible' && v.verdict.action === 'allow').map(show)).toEqual([]);
  });

  it('auto-allows no risky call either', () => {
    expect(verdicts.filter((v) => v.label === 'risky' && v.verdict.action === 'allow').map(show)).toEqual([]);
  });

  it('auto-allows at least 95 % of the safe calls, and reports the share of the whole corpus decided', () => {
    const auto = verdicts.filter((v) => v.verdict.action !== 'ask').length;
    const safe = verdicts.filter((v) => v.label === 'safe');
    const safeAllowed = safe.filter((v) => v.verdict.action === 'allow');
    // The numbers docs/permissions.md quotes; a change to the default set or the corpus updates both.
    console.info(
      `corpus: ${verdicts.length} calls, ${auto} auto-decided (${((auto / verdicts.length) * 100).toFixed(1)} %), ` +
        `${safeAllowed.length}/${safe.length} safe allowed; asked safe: ` +
        safe
          .filter((v) => v.verdict.action === 'ask')
          .map(show)
          .join('; '),
    );
    expect(safeAllowed.length / safe.length).toBeGreaterThanOrEqual(0.95);
  });

  it('names the rule behind every automatic decision', () => {
    for (const v of verdicts) if (v.verdict.action !== 'ask') expect(v.verdict.rule, show(v)).not.toBeNull();
  });
});
