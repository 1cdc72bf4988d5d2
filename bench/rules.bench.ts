/**
 * Approval rules per permission request (docs/permissions.md): reading the call (the shell parse, paths against
 * the worktree) and evaluating it against the shipped defaults plus 500 rules of the operator's, over the labelled
 * corpus's calls in turn, beside what the permission path already does with every request in the same run (the
 * NATS payload's JSON parse and its zod check, PermissionAsk). Target: p99 <= 0.2 ms with 500 rules.
 */
import type { RuleAction, RuleTool } from '../shared/contract/rules';
import { CORPUS, CORPUS_WORKTREE } from '../test/fixtures/rules-corpus/tool-call-corpus';
import { DEFAULT_RULES } from '../main/core/permissions/rules/default-rules';
import { compileRule, evaluate, type RuleLike } from '../main/core/permissions/rules/evaluate';
import { RuleSet } from '../main/core/permissions/rules/rule-set';
import { toolCallOf } from '../main/core/permissions/rules/tool-call';
import { PermissionAsk } from '../main/core/permissions/permission-requests';
import { compare, measurePair, type Benchmark } from './lib';

const OPERATOR_RULES = 500;

/** 500 rules of every kind the operator writes: prefixes, globs, inside:, paths, hosts, tool names, regexes. */
function operatorRules(): RuleLike[] {
  const out: RuleLike[] = [];
  const kinds: [RuleTool, (i: number) => string][] = [
    ['shell', (i) => `tool${i} run`],
    ['shell', (i) => `inside:make target-${i}`],
    ['shell', (i) => `npm run task-${i}*`],
    ['edit', (i) => `generated/part-${i}/**`],
    ['read', (i) => `/opt/data-${i}/*`],
    ['fetch', (i) => `*.host-${i}.example`],
    ['mcp', (i) => `mcp__server${i}__*`],
    ['shell', (i) => `re:^deploy-${i}\\b`],
  ];
  for (let i = 0; out.length < OPERATOR_RULES; i++) {
    const [tool, pattern] = kinds[i % kinds.length]!;
    const action: RuleAction = i % 7 === 0 ? 'deny' : i % 5 === 0 ? 'ask' : 'allow';
    out.push({ id: `op-${i}`, action, tool, pattern: pattern(i) });
  }
  return out;
}

const bench: Benchmark = async () => {
  const rules = new RuleSet([...DEFAULT_RULES, ...operatorRules()].map(compileRule));
  const payloads = CORPUS.map((c) =>
    new TextEncoder().encode(
      JSON.stringify({
        sessionId: 'bench-session',
        workspaceId: 'bench-ws',
        at: new Date().toISOString(),
        toolName: c.toolName,
        toolInput: c.input,
      }),
    ),
  );
  let i = 0;
  let j = 0;
  // The baseline: what ask() already does with every request before any rule (decode, JSON, zod).
  const base = () => {
    PermissionAsk.parse(JSON.parse(new TextDecoder().decode(payloads[i++ % payloads.length]!)));
    return Promise.resolve();
  };
  const subject = () => {
    const c = CORPUS[j++ % CORPUS.length]!;
    evaluate(rules, toolCallOf(c.toolName, c.input, CORPUS_WORKTREE));
    return Promise.resolve();
  };
  const { base: b, subject: s } = await measurePair(base, subject, {
    iterations: 40_000,
    concurrency: 1,
    rounds: 8,
    warmup: 2_000,
  });
  const figure = compare(
    `approval rules: one request read and evaluated (${rules.rules.length} rules: defaults + ${OPERATOR_RULES})`,
    'the request parse the permission path already does',
    s,
    b,
    'p99 <= 0.2 ms with 500 rules',
  );
  return [{ ...figure, extra: { rules: rules.rules.length, corpusCalls: CORPUS.length } }];
};

export default bench;
