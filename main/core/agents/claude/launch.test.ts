import { describe, expect, it } from 'vitest';
import { FIXTURE_SUBCOMMANDS, parseAgentArgs } from '../../../../resources/worker/fixtures/agent-cli/parse-args';
import { SessionsConfig, type SessionsConfigInput } from '../../sessions/config';
import { launchScript, MAX_PROMPT_BYTES, shellQuote } from '../launch';
import { buildLaunchCommand, guardSubcommand, OPTIONAL_VALUE_OPTIONS, planLaunch, VARIADIC_OPTIONS } from './launch';
import { execFileSync } from 'node:child_process';
import { hostileCorpus } from '../../../../test/helpers/hostile-corpus';

const base = {
  workspace: 'demo',
  name: 'fix-auth',
  sessionId: 's-1',
  workspaceId: 'w-1',
  agentSessionId: '00000000-0000-4000-8000-000000000001',
};
const launch = (
  cfg: SessionsConfigInput,
  initialMessage?: string,
  extra: Partial<typeof base & { resume: boolean; mcpConfig: string }> = {},
) => buildLaunchCommand(SessionsConfig.parse(cfg), { ...base, ...extra, initialMessage });

/** Runs the shell line through a real sh and returns the argv the program would receive. */
function argvThroughSh(shellLine: string): string[] {
  const line = shellLine.replace(
    /^exec /,
    `exec node -e 'process.stdout.write(JSON.stringify(process.argv.slice(1)))' `,
  );
  return JSON.parse(execFileSync('sh', ['-c', line], { encoding: 'utf8' })) as string[];
}

describe('buildLaunchCommand', () => {
  it('passes the initial message as the positional prompt, after --, as the last argument', () => {
    const cmd = launch({}, 'fix the auth bug');
    expect(cmd.argv.slice(-2)).toEqual(['--', 'fix the auth bug']);
    expect(cmd.argv[0]).toBe('claude');
    expect(parseAgentArgs(cmd.argv.slice(1)).prompt).toBe('fix the auth bug');
  });

  it.each([...VARIADIC_OPTIONS, ...OPTIONAL_VALUE_OPTIONS])(
    'keeps the prompt when the operator configures %s before it',
    (flag) => {
      const cmd = launch({ agentArgs: [flag, 'value-a', '--verbose', flag, 'value-b'] }, 'the prompt');
      const parsed = parseAgentArgs(cmd.argv.slice(1));
      expect(parsed.error).toBeNull();
      expect(parsed.prompt).toBe('the prompt');
    },
  );

  it('shows the trap it guards against: without -- a variadic flag swallows the prompt', () => {
    const wrong = parseAgentArgs(['--channels', 'server-a', 'the prompt']);
    expect(wrong.prompt).toBeNull();
    expect(wrong.options['--channels']).toEqual(['server-a', 'the prompt']);
    const optional = parseAgentArgs(['--remote-control', 'the prompt']);
    expect(optional.prompt).toBeNull();
  });

  it('writes every value-taking option it adds as --opt=value, so none can take a following argument', () => {
    const cmd = launch({ mcpConfig: '/opt/nexus/mcp.json' }, 'go');
    const own = cmd.argv.slice(1, cmd.argv.indexOf('--'));
    for (const arg of own) expect(arg).toMatch(/^--[a-z-]+=/);
    expect(own).toContain('--mcp-config=/opt/nexus/mcp.json');
    expect(own).toContain('--remote-control=demo · fix-auth');
    const parsed = parseAgentArgs(cmd.argv.slice(1));
    expect(parsed.options['--mcp-config']).toEqual(['/opt/nexus/mcp.json']);
    expect(parsed.options['--remote-control']).toEqual(['demo · fix-auth']);
  });

  it("adds the session's own --mcp-config after the operator's, both taken as MCP configs and none as the prompt", () => {
    const cmd = launch({ mcpConfig: '/opt/nexus/mcp.json' }, 'go on', {
      mcpConfig: '/tmp/nexus-sessions/s-1/mcp.json',
    });
    const parsed = parseAgentArgs(cmd.argv.slice(1));
    expect(parsed.options['--mcp-config']).toEqual(['/opt/nexus/mcp.json', '/tmp/nexus-sessions/s-1/mcp.json']);
    expect(parsed.prompt).toBe('go on');
  });

  it.each(FIXTURE_SUBCOMMANDS)('still delivers the one-word prompt %j as a prompt, not a subcommand', (word) => {
    const cmd = launch({}, word);
    expect(cmd.promptGuarded).toBe(true);
    const parsed = parseAgentArgs(cmd.argv.slice(1));
    expect(parsed.subcommand).toBeNull();
    expect(parsed.prompt?.trim()).toBe(word);
  });

  it('guards only prompts that could be a subcommand name and leaves every other prompt byte-exact', () => {
    for (const word of ['doctor', 'mcp', 'update', 'setup-token', 'plugin:list', 'x'.repeat(64)])
      expect(guardSubcommand(word)).toBe(`${word}\n`);
    for (const text of ['run the doctor', '-rf', '--help', '--', "'", '"', '\\', 'x'.repeat(65), 'ünï', '!!;'])
      expect(guardSubcommand(text)).toBe(text);
  });

  it.each(hostileCorpus.map((t) => [t.slice(0, 30), t]))(
    'quotes %j so a real sh hands it over byte-exact',
    (_label, text) => {
      const cmd = launch({}, text);
      const received = argvThroughSh(cmd.shellLine);
      expect(received).toEqual(cmd.argv);
      expect(received[received.length - 1]).toBe(guardSubcommand(text));
    },
  );

  it('never pipes the agent: the shell line is a single exec with no pipe outside quotes', () => {
    const cmd = launch({}, 'a | b');
    expect(cmd.shellLine.startsWith('exec ')).toBe(true);
    const outsideQuotes = cmd.shellLine.replace(/'[^']*'/g, '');
    expect(outsideQuotes).not.toMatch(/[|;&<>`$]/);
  });

  it('launches in a prompting permission mode, auto by default', () => {
    expect(launch({}).argv).toContain('--permission-mode=auto');
    expect(launch({ permissionMode: 'default' }).argv).toContain('--permission-mode=default');
  });

  it("points the CLI at Nexus's gateway with its credential's file, and does not default to auto behind it", () => {
    const gateway = { url: 'http://10.0.0.1:4782/claude', keyFile: '/tmp/nexus-sessions/s-1/gateway-key' };
    const behind = buildLaunchCommand(SessionsConfig.parse({}), { ...base, agent: { gateway } });
    expect(behind.argv).toContain('--permission-mode=default');
    expect(behind.env).toMatchObject({
      ANTHROPIC_BASE_URL: 'http://10.0.0.1:4782/claude',
      NEXUS_GATEWAY_KEY_FILE: '/tmp/nexus-sessions/s-1/gateway-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    });
    // Nothing of a credential in the launch: the key helper reads the file when the CLI asks.
    expect(behind.preludeLines).toEqual([]);
    const chosen = SessionsConfig.parse({ permissionMode: 'acceptEdits' });
    expect(buildLaunchCommand(chosen, { ...base, agent: { gateway } }).argv).toContain('--permission-mode=acceptEdits');
    expect(launch({}).env).not.toHaveProperty('ANTHROPIC_BASE_URL');
  });

  it("runs bypassPermissions only as the workspace's choice, and says inbox messages are then held", () => {
    const bypass = buildLaunchCommand(SessionsConfig.parse({}), { ...base, agent: { bypass: true } });
    expect(bypass.argv).toContain('--permission-mode=bypassPermissions');
    expect(bypass.permissionMode).toBe('bypassPermissions');
  });

  it('refuses bypassPermissions from the configuration or agent arguments', () => {
    expect(SessionsConfig.safeParse({ permissionMode: 'bypassPermissions' }).error?.issues[0]?.path).toEqual([
      'permissionMode',
    ]);
    expect(() => launch({ agentArgs: ['--dangerously-skip-permissions'] }, 'x')).toThrow(/bypassPermissions/);
    expect(() => launch({ agentArgs: ['--permission-mode', 'bypassPermissions'] }, 'x')).toThrow(/bypassPermissions/);
    expect(() => launch({ agentArgs: ['--permission-mode=bypassPermissions'] }, 'x')).toThrow(/bypassPermissions/);
  });

  it('refuses a configured variadic flag left without values and a configured --', () => {
    expect(() => launch({ agentArgs: ['--add-dir'] }, 'x')).toThrow(/takes values/);
    expect(() => launch({ agentArgs: ['--'] }, 'x')).toThrow(/--/);
  });

  it('starts a new conversation with --session-id and resumes it with --resume=<id> without repeating the prompt', () => {
    expect(launch({}, 'hello').argv).toContain(`--session-id=${base.agentSessionId}`);
    const again = launch({}, 'hello', { resume: true });
    expect(again.argv).toContain(`--resume=${base.agentSessionId}`);
    expect(again.argv).not.toContain('--');
    expect(parseAgentArgs(again.argv.slice(1)).options['--resume']).toEqual([base.agentSessionId]);
  });

  it('launches without a prompt when there is no initial message', () => {
    const parsed = parseAgentArgs(launch({}).argv.slice(1));
    expect(parsed.prompt).toBeNull();
    expect(parsed.error).toBeNull();
  });

  it('refuses a prompt no command line can carry', () => {
    expect(() => launch({}, 'a\0b')).toThrow(/NUL/);
    expect(() => launch({}, 'é'.repeat(MAX_PROMPT_BYTES))).toThrow(/bytes/);
    expect(() => launch({}, 'a'.repeat(MAX_PROMPT_BYTES - 1) + ' ')).not.toThrow();
  });

  it('names the session in the agent environment for its hooks, with auto-update off', () => {
    expect(launch({}).env).toEqual({
      DISABLE_AUTOUPDATER: '1',
      NEXUS_SESSION_ID: 's-1',
      NEXUS_WORKSPACE_ID: 'w-1',
      CLAUDE_CODE_SESSION_NAME: 'demo · fix-auth',
    });
  });

  it('leaves plain words unquoted and quotes everything else', () => {
    expect(shellQuote('--permission-mode=auto')).toBe('--permission-mode=auto');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('')).toBe(`''`);
  });

  it('refuses a bad prompt or agent argument when the launch is planned, before any command exists', () => {
    expect(() => planLaunch(SessionsConfig.parse({}), { ...base, initialMessage: '' })).toThrow(
      expect.objectContaining({ code: 'bad_request' }),
    );
    expect(() => planLaunch(SessionsConfig.parse({ agentArgs: ['--dangerously-skip-permissions'] }), base)).toThrow(
      expect.objectContaining({ code: 'bad_request' }),
    );
  });

  it("assembles a planned launch with the session's run config, before the operator's args and the prompt", () => {
    const plan = planLaunch(SessionsConfig.parse({ agentArgs: ['--add-dir=/data'] }), {
      ...base,
      initialMessage: 'go on',
    });
    const parsed = parseAgentArgs(plan.command('/tmp/run/mcp.json').argv.slice(1));
    expect(parsed.options['--mcp-config']).toEqual(['/tmp/run/mcp.json']);
    expect(parsed.prompt).toBe('go on');
    expect(plan.command().argv).not.toContain('--mcp-config=/tmp/run/mcp.json');
  });

  it('writes a launch script that enters the worktree, exports the environment and execs the command', () => {
    const cmd = launch({}, "it's done");
    const script = launchScript('/workspace/.nexus-worktrees/fix auth', cmd);
    const lines = script.split('\n');
    expect(lines[0]).toBe('#!/bin/sh');
    expect(lines[1]).toBe("cd '/workspace/.nexus-worktrees/fix auth' || exit 1");
    expect(lines).toContain('export NEXUS_SESSION_ID=s-1');
    expect(lines.at(-2)).toBe(cmd.shellLine);
    // Nothing between the environment and the exec: no credential is handed over in the script.
    expect(cmd.preludeLines).toEqual([]);
    expect(lines.at(-3)).toMatch(/^export /);
  });
});
