import { describe, expect, it } from 'vitest';
import { hostileCorpus } from '../../../../test/helpers/hostile-corpus';

import { CODEX_VARIADIC_OPTIONS, codexConfigToml, codexHooksJson, codexQueueArgs, planCodexLaunch } from './launch';
import { launchScript } from '../launch';

const base = {
  workspace: 'ws',
  name: 'one',
  sessionId: 'sess-1',
  workspaceId: 'w-1',
  hooksJson: '{"hooks":{}}',
  gatewayKeyFile: '/tmp/nexus-sessions/sess-1/gateway-key',
};

describe('the Codex launch', () => {
  it('puts every prompt of the hostile corpus last, right after `--`, with no variadic option before it', () => {
    for (const prompt of hostileCorpus) {
      const { argv } = planCodexLaunch({ ...base, initialMessage: prompt }).command('/tmp/x/codex-config.toml');
      expect(argv.at(-1)).toBe(prompt.startsWith('!') ? `\n${prompt}` : prompt);
      expect(argv.at(-2)).toBe('--');
      expect(argv.slice(0, -2).some((a) => CODEX_VARIADIC_OPTIONS.includes(a))).toBe(false);
      expect(argv.slice(0, 4)).toEqual(['codex', '--no-daemon', '--dangerously-bypass-hook-trust', '--']);
    }
  });

  it('resumes the thread Codex named in its SessionStart hook, without repeating the prompt', () => {
    const { argv } = planCodexLaunch({
      ...base,
      initialMessage: 'first words',
      resume: true,
      threadId: '01a23358-5828-7c11-b809-b3445017a856',
    }).command();
    expect(argv).toEqual([
      'codex',
      'resume',
      '--no-daemon',
      '--dangerously-bypass-hook-trust',
      '01a23358-5828-7c11-b809-b3445017a856',
    ]);
  });

  it('runs in a per-session CODEX_HOME outside temp dirs, signed in with its gateway credential only, never a key', () => {
    const cmd = planCodexLaunch({ ...base, initialMessage: 'hi' }).command('/tmp/nexus-sessions/sess-1/c.toml');
    expect(cmd.env.CODEX_HOME).toBe('/home/nexus/.nexus-codex/sess-1');
    // nexus-hook gates this kind's PreToolUse (the worker hook reads the event, never the kind).
    expect(cmd.env.NEXUS_HOOK_GATE).toBe('PreToolUse');
    const script = launchScript('/workspace/.nexus-worktrees/one', cmd);
    // The gateway credential from the session's run file, into the variable config.toml's provider reads.
    expect(script).toContain(
      'NEXUS_GATEWAY_KEY=$(cat /tmp/nexus-sessions/sess-1/gateway-key) && export NEXUS_GATEWAY_KEY || exit 1',
    );
    expect(script).not.toContain('codex login');
    expect(script).not.toContain('/run/nexus');
    expect(script).toContain(`cp /tmp/nexus-sessions/sess-1/c.toml "$CODEX_HOME/config.toml"`);
    expect(script).toContain('"$CODEX_HOME/hooks.json"');
    expect(script.trim().split('\n').at(-1)).toBe('exec codex --no-daemon --dangerously-bypass-hook-trust -- hi');
  });

  it('writes config.toml with trust, updates and analytics off, full access, the model endpoint and the servers', () => {
    const toml = codexConfigToml({
      worktree: '/workspace/.nexus-worktrees/one',
      gatewayUrl: 'http://172.17.0.1:4782/codex/',
      model: 'nexus-model',
      mcpServers: {
        nexus: { command: '/opt/nexus/bin/nexus-mcp', args: [], env: { NEXUS_RUN_ID: 'r1', 'A"B': 'x\ny' } },
        'nexus-delegated': { type: 'http', url: 'http://h/api/mcp', headers: { Authorization: 'Bearer t' } },
      },
      autoApproveServers: ['nexus', 'nexus-delegated'],
    });
    expect(toml).toContain('[projects."/workspace/.nexus-worktrees/one"]\ntrust_level = "trusted"');
    for (const line of [
      'check_for_update_on_startup = false',
      'sandbox_mode = "danger-full-access"',
      'approval_policy = "never"',
      '[analytics]\nenabled = false',
      'model = "nexus-model"\nmodel_provider = "nexus"',
      'base_url = "http://172.17.0.1:4782/codex/v1"',
      'wire_api = "responses"',
      'env_key = "NEXUS_GATEWAY_KEY"',
      'requires_openai_auth = false',
      'request_max_retries = 10',
      '[mcp_servers.nexus]\ncommand = "/opt/nexus/bin/nexus-mcp"',
      'env = { NEXUS_RUN_ID = "r1", "A\\"B" = "x\\ny" }',
      '[mcp_servers.nexus-delegated]\nurl = "http://h/api/mcp"\nhttp_headers = { Authorization = "Bearer t" }',
    ])
      expect(toml).toContain(line);
  });

  it('declares the five events Codex raises as command hooks, the gate outlasting Nexus’s wait', () => {
    const json = JSON.parse(
      codexHooksJson((event, timeout) => ({ type: 'command', command: `hook ${event}`, timeout }), 135),
    ) as { hooks: Record<string, { hooks: { timeout: number }[] }[]> };
    expect(Object.keys(json.hooks)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']);
    expect(json.hooks.PreToolUse?.[0]?.hooks[0]?.timeout).toBe(135);
    expect(json.hooks.Stop?.[0]?.hooks[0]?.timeout).toBe(10);
  });

  it('never hands Codex a text starting with `!`, which its TUI would run as a shell command, outside any gate', () => {
    const { argv } = planCodexLaunch({ ...base, initialMessage: '!rm -rf /' }).command();
    expect(argv.at(-1)).toBe('\n!rm -rf /');
    expect(codexQueueArgs('t-1', '!id').at(-1)).toBe('--message=\n!id');
    expect(
      planCodexLaunch({ ...base, initialMessage: ' !id' })
        .command()
        .argv.at(-1),
    ).toBe(' !id');
  });

  it('queues a message as one `--message=` argument, so a leading dash is never an option', () => {
    expect(codexQueueArgs('t-1', '--help')).toEqual(['codex', 'queue', '--thread=t-1', '--message=--help']);
    expect(() => codexQueueArgs('t-1', 'a\0b')).toThrow(/NUL/);
  });
});
