import { describe, expect, it } from 'vitest';
import { NexusError } from '../../../../shared/errors';
import type { RuleAction, RuleTool } from '../../../../shared/contract/rules';
import { DEFAULT_FETCH_HOSTS } from './default-commands';
import { DEFAULT_RULES, defaultRules } from './default-rules';
import { compileRule, evaluate, type RuleLike } from './evaluate';
import { toolCallOf } from './tool-call';

const WT = '/workspace/.nexus-worktrees/s1';
let n = 0;
const r = (action: RuleAction, tool: RuleTool, pattern: string): RuleLike => ({ id: `r${++n}`, action, tool, pattern });
const decide = (rules: RuleLike[], toolName: string, input: unknown) =>
  evaluate(rules.map(compileRule), toolCallOf(toolName, input, WT));
const bash = (rules: RuleLike[], command: string) => decide(rules, 'Bash', { command }).action;

describe('the rule engine', () => {
  it('asks when no rule matches', () => {
    expect(decide([], 'Bash', { command: 'ls' })).toEqual({ action: 'ask', rule: null });
  });

  it('lets a deny win over an allow, and an ask win over allow-all', () => {
    const allowAll = r('allow', 'any', '*');
    expect(bash([allowAll], 'git push')).toBe('allow');
    expect(bash([allowAll, r('ask', 'shell', 'git push')], 'git push origin main')).toBe('ask');
    expect(bash([allowAll, r('ask', 'shell', 'git push'), r('deny', 'shell', 'git')], 'git push')).toBe('deny');
    expect(decide([...DEFAULT_RULES, allowAll], 'Bash', { command: 'git push' }).rule?.id).toMatch(/^default:/);
  });

  it('matches a command prefix by whole words, through wrappers and git global options', () => {
    const ask = [r('ask', 'shell', 'git push'), r('allow', 'shell', '*')];
    for (const c of ['git push', 'git -C /x push', 'env A=1 git push', '/usr/bin/git push -f', 'nohup git push &'])
      expect(bash(ask, c), c).toBe('ask');
    expect(bash(ask, 'git pushx')).toBe('allow');
  });

  it('allows a compound command only when every part is allowed, and asks when any part asks', () => {
    const rules = [r('allow', 'shell', 'npm test'), r('allow', 'shell', 'git status'), r('ask', 'shell', 'git push')];
    expect(bash(rules, 'git status && npm test')).toBe('allow');
    expect(bash(rules, 'npm test; curl x')).toBe('ask');
    expect(bash(rules, 'npm test && git push')).toBe('ask');
    expect(bash(rules, 'npm test | tee out.txt')).toBe('ask');
  });

  it('allows a command it cannot see through only by "*"', () => {
    const rules = [r('allow', 'shell', 'echo'), r('allow', 'shell', 'sh')];
    expect(bash(rules, 'echo $(rm -rf x)')).toBe('ask');
    expect(bash(rules, 'echo `id`')).toBe('ask');
    expect(bash(rules, 'sh -c "echo hi"')).toBe('ask');
    expect(bash([r('allow', 'shell', '*')], 'echo $(id)')).toBe('allow');
  });

  it('reads inside: and outside: from every path a command names, redirects and cd included', () => {
    const rules = [
      r('allow', 'shell', 'inside:cat'),
      r('allow', 'shell', 'inside:cd'),
      r('ask', 'shell', 'outside:rm'),
    ];
    expect(bash(rules, 'cat src/a.ts')).toBe('allow');
    expect(bash(rules, 'cat /etc/hosts')).toBe('ask');
    expect(bash(rules, 'cat ../other/a.ts')).toBe('ask');
    expect(bash(rules, 'cat a > /tmp/x')).toBe('ask');
    expect(bash(rules, 'cat a 2>/dev/null')).toBe('allow');
    expect(bash(rules, 'cd /tmp && cat a')).toBe('ask');
    expect(bash(rules, 'cd .. && rm -rf s1')).toBe('ask');
    expect(decide(rules, 'Bash', { command: 'rm x' }).rule).toBeNull();
  });

  it('reads a here-doc as input: its lines are no commands, and a body that expands is opaque', () => {
    const rules = [r('allow', 'shell', 'inside:cat'), r('allow', 'shell', 'inside:ls'), r('ask', 'shell', 'git push')];
    expect(bash(rules, "cat > notes.md <<'EOF'\ngit push\n$(id)\nEOF\nls")).toBe('allow');
    expect(bash(rules, 'cat <<-EOF > notes.md\n\tplain text\n\tEOF')).toBe('allow');
    expect(bash(rules, 'cat <<EOF > notes.md\n$(id)\nEOF')).toBe('ask');
    expect(bash(rules, 'cat <<EOF > notes.md\nno end')).toBe('ask');
    expect(bash(rules, 'cat <<< "$HOME"')).toBe('ask');
    expect(bash(rules, 'cat <<< "just text"')).toBe('allow');
  });

  it('sees what a read-only looking command runs: env in front, git -c, sed scripts, flags that run or write', () => {
    const rules = DEFAULT_RULES.map((d) => d);
    for (const ok of ['CI=1 npm test', "sed -n '1,20p;/x/p' a.ts", "sed -i 's|a|b|g' a.ts", 'git -C src log'])
      expect(bash(rules, ok), ok).toBe('allow');
    for (const no of [
      'PAGER=x git log',
      'git -c core.pager=x log',
      "sed -n '1w out' a.ts",
      "sed 's/a/b/w out' a.ts",
      'rg --pre=x y',
      'sort -o/tmp/x a',
      'cat $X',
      'cd - && ls',
      '/tmp/x/ls',
      'make test deploy',
    ])
      expect(bash(rules, no), no).toBe('ask');
    expect(decide(rules, 'exec_command', { cmd: 'ls', workdir: '/home/nexus' }).action).toBe('ask');
    expect(decide(rules, 'exec_command', { cmd: 'ls', workdir: 'src' }).action).toBe('allow');
  });

  it('matches file tools by inside / outside / path glob, fetches by host, MCP and other tools by name', () => {
    const rules = [
      r('allow', 'read', 'inside'),
      r('allow', 'edit', 'src/**'),
      r('allow', 'fetch', '*.example.com'),
      r('allow', 'mcp', 'mcp__github__get_*'),
      r('allow', 'other', 'spawn_agent'),
    ];
    expect(decide(rules, 'Read', { file_path: `${WT}/a.ts` }).action).toBe('allow');
    expect(decide(rules, 'Read', { file_path: '/etc/passwd' }).action).toBe('ask');
    expect(decide(rules, 'Edit', { file_path: `${WT}/src/deep/a.ts` }).action).toBe('allow');
    expect(decide(rules, 'Write', { file_path: `${WT}/package.json` }).action).toBe('ask');
    expect(decide(rules, 'apply_patch', { input: '*** Update File: src/a.ts\n' }).action).toBe('allow');
    expect(decide(rules, 'apply_patch', { input: '*** Update File: ../b.ts\n' }).action).toBe('ask');
    expect(decide(rules, 'apply_patch', { input: 'no files named' }).action).toBe('ask');
    expect(decide(rules, 'WebFetch', { url: 'https://packages.example.com/zod' }).action).toBe('allow');
    expect(decide(rules, 'WebFetch', { url: 'https://packages.example.com.evil.example/' }).action).toBe('ask');
    expect(decide(rules, 'web_search', { query: 'x' }).action).toBe('ask');
    expect(decide(rules, 'mcp__github__get_issue', {}).action).toBe('allow');
    expect(decide(rules, 'mcp__github__create_issue', {}).action).toBe('ask');
    expect(decide(rules, 'spawn_agent', {}).action).toBe('allow');
    expect(decide(rules, 'send_input', {}).action).toBe('ask');
  });

  it("takes the default set's fetch allow-list from the core config, the other defaults keeping their ids", () => {
    const own = defaultRules(['docs.example.com', '*.docs.example.com']);
    const fetch = (rules: RuleLike[], url: string) => decide(rules, 'WebFetch', { url }).action;
    expect(fetch(own, 'https://docs.example.com/a')).toBe('allow');
    expect(fetch(own, 'https://api.docs.example.com/a')).toBe('allow');
    const shipped = `https://${DEFAULT_FETCH_HOSTS[0]}/zod`;
    expect(fetch(own, shipped)).toBe('ask');
    expect(fetch([...DEFAULT_RULES], shipped)).toBe('allow');
    expect(fetch(own, 'http://169.254.169.254/latest/meta-data/')).toBe('deny');
    const shared = DEFAULT_RULES.filter((r) => r.tool !== 'fetch' || r.action !== 'allow');
    expect(own.slice(0, shared.length)).toEqual(shared);
  });

  it('refuses a pattern that cannot work with a typed error', () => {
    for (const [tool, pattern] of [
      ['shell', 're:(unclosed'],
      ['any', 'git push'],
      ['shell', `re:${'a'.repeat(600)}`],
    ] as const)
      expect(() => compileRule(r('allow', tool, pattern)), pattern).toThrow(NexusError);
  });
});
