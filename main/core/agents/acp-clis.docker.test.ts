import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_WORKER_PATH, workspaceContainerSpec } from '../docker';
import { testAcpCli } from '../../../test/helpers/acp-cli';
import { AcpStdio } from '../../../test/helpers/acp-stdio';
import { dockerExec } from '../../../test/helpers/agent-cli';
import {
  chatToolResults,
  startChatCompletionsApi,
  type ChatCompletionsApi,
} from '../../../test/helpers/chat-completions-api';
import { ensureTestWorkerImage, realDocker } from '../../../test/helpers/docker';
import { geminiFunctionResponses, startGeminiApi, type GeminiApi } from '../../../test/helpers/gemini-api';
import type { ModelReply } from '../../../test/helpers/model-api';
import { TEST_NETWORK, workerHostAddress } from '../../../test/helpers/network';
import { GEMINI_ACP_ARGV, GEMINI_CLI, GEMINI_CLI_MOUNT } from './gemini/cli';
import { OPENCODE_ACP_ARGV, OPENCODE_CLI, OPENCODE_CLI_MOUNT } from './opencode/cli';
import { QWEN_ACP_ARGV, QWEN_CLI, QWEN_CLI_MOUNT } from './qwen/cli';

/**
 * The pinned CLIs of the ACP kinds, each in a real worker container as its non-root user, driven over stdio by a
 * hand-written ACP client (no Nexus) against its wire's scripted stand-in on the host: initialize, session/new,
 * a text turn; then a shell call the agent must ask about (session/request_permission, in the mode that makes it
 * ask), answered reject_once: the command never runs and the model is told. The measured facts are docs/agents.md's
 * "ACP kinds" table.
 */
describe.concurrent('the ACP kinds’ real CLIs in a worker', () => {
  let container: string;
  let gemini: GeminiApi;
  let chat: ChatCompletionsApi;
  /** Scripted replies per model name (OpenCode and Qwen share the Chat Completions stand-in). */
  const scripts = new Map<string, ModelReply[]>();
  const script = (model: string, ...replies: ModelReply[]) =>
    void scripts.set(model, [...(scripts.get(model) ?? []), ...replies]);
  const canary = (name: string) => `${name}-canary-${randomBytes(8).toString('hex')}`;
  const keys = { gemini: canary('AIza'), opencode: canary('sk-oc'), qwen: canary('sk-qw') };

  beforeAll(async () => {
    const host = await workerHostAddress();
    gemini = await startGeminiApi({ host });
    chat = await startChatCompletionsApi({ host });
    gemini.onTurn(() => scripts.get('gemini')?.shift() ?? { text: 'OK.' });
    chat.onTurn((r) => scripts.get(r.body.model ?? '')?.shift() ?? { text: 'OK.' });
    const mounts = [
      { source: { bind: testAcpCli(GEMINI_CLI).mountDir }, target: GEMINI_CLI_MOUNT },
      { source: { bind: testAcpCli(OPENCODE_CLI).mountDir }, target: OPENCODE_CLI_MOUNT },
      { source: { bind: testAcpCli(QWEN_CLI).mountDir }, target: QWEN_CLI_MOUNT },
    ];
    const tag = randomBytes(4).toString('hex');
    const spec = workspaceContainerSpec(
      { id: `acp-test-${tag}`, name: `acp-test-${tag}`, volume: 'unused' },
      await ensureTestWorkerImage(),
      `acp-test-${tag}`,
      { network: TEST_NETWORK, memoryBytes: 3 * 1024 ** 3, pidsLimit: 1024 },
      { mounts, path: BASE_WORKER_PATH },
    );
    spec.Labels = { ...spec.Labels, 'nexus.test': `acp-test-${tag}` };
    spec.HostConfig = { ...spec.HostConfig, Mounts: (spec.HostConfig?.Mounts ?? []).filter((m) => m.Type === 'bind') };
    const c = await realDocker().createContainer(spec);
    await c.start();
    container = c.id;
    const r = await dockerExec(container, [
      'sh',
      '-c',
      'git config --global user.email t@example.invalid && git config --global user.name test && ' +
        'git init -q -b main /workspace && cd /workspace && echo hello > README.md && git add . && git commit -qm init',
    ]);
    expect(r.stderr).toBe('');
    // The agents run as the worker's user, never root.
    expect((await dockerExec(container, ['id', '-u'])).stdout.trim()).toBe('1000');
  }, 300_000);
  afterAll(async () => {
    await realDocker()
      .getContainer(container)
      .remove({ force: true, v: true })
      .catch(() => undefined);
    await gemini?.close();
    await chat?.close();
  });

  interface Kind {
    model: string;
    argv: readonly string[];
    env: Record<string, string>;
    /** The mode that makes it ask before a shell call (session/set_mode), when session/new's is not. */
    mode?: string;
    shell: (cmd: string) => { name: string; input: Record<string, unknown> };
    /** What the model was told about the rejected call. */
    toldModel: () => string;
    /** How many conversation requests its stand-in has seen from this kind. */
    requests: () => number;
  }

  async function drive(k: Kind) {
    const agent = AcpStdio.exec(container, k.argv, { env: k.env, cwd: '/workspace' });
    try {
      const init = await agent.request<{ protocolVersion: number; agentCapabilities: Record<string, unknown> }>(
        'initialize',
        {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: 'nexus-test', version: '0' },
        },
        // A loaded 2-core machine takes a minute to start three of them at once.
        150_000,
      );
      expect(init.protocolVersion).toBe(1);
      const session = await agent.request<{ sessionId: string; modes?: { currentModeId: string } }>(
        'session/new',
        { cwd: '/workspace', mcpServers: [] },
        90_000,
      );
      const sessionId = session.sessionId;
      if (k.mode) await agent.request('session/set_mode', { sessionId, modeId: k.mode });
      script(k.model, { text: 'Hello from the stand-in.' });
      const first = await agent.request<{ stopReason: string }>(
        'session/prompt',
        { sessionId, prompt: [{ type: 'text', text: 'say hello' }] },
        90_000,
      );
      expect(first.stopReason).toBe('end_turn');
      const said = agent
        .updates()
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => (u.content as { text?: string }).text ?? '')
        .join('');
      expect(said).toContain('Hello from the stand-in.');

      // In the worktree: a path outside it makes OpenCode ask about the directory (external_directory), not the shell.
      const marker = `/workspace/acp-${k.model}-${randomBytes(4).toString('hex')}`;
      const asked: Record<string, unknown>[] = [];
      agent.on('session/request_permission', (p) => {
        asked.push(p);
        const options = p.options as { optionId: string; kind: string }[];
        return { outcome: { outcome: 'selected', optionId: options.find((o) => o.kind === 'reject_once')!.optionId } };
      });
      script(k.model, { toolUse: k.shell(`touch ${marker}`) }, { text: 'Understood, not run.' });
      const requestsBefore = k.requests();
      const second = await agent.request<{ stopReason: string }>(
        'session/prompt',
        { sessionId, prompt: [{ type: 'text', text: 'make the marker' }] },
        90_000,
      );
      expect(asked, agent.wire.join('\n')).toHaveLength(1);
      expect(JSON.stringify(asked[0]!.toolCall)).toContain(marker);
      expect((await dockerExec(container, ['test', '-e', marker])).exitCode).not.toBe(0);
      expect(second.stopReason).toBe('end_turn');
      const failed = agent
        .updates()
        .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')
        .map((u) => JSON.stringify(u.content));
      return { told: k.toldModel(), failed, afterReject: k.requests() - requestsBefore };
    } catch (e) {
      throw new Error(`${String(e)}\n--- wire\n${agent.wire.slice(-60).join('\n')}\n--- stderr\n${agent.stderr}`);
    } finally {
      await agent.close();
    }
  }

  it('Gemini CLI: a text turn, then a shell call asked in mode default and rejected', async () => {
    const r = await drive({
      model: 'gemini',
      argv: GEMINI_ACP_ARGV,
      env: { GOOGLE_GEMINI_BASE_URL: gemini.url, GEMINI_API_KEY: keys.gemini, GEMINI_CLI_TRUST_WORKSPACE: 'true' },
      requests: () => gemini.turns().length,
      shell: (command) => ({ name: 'run_shell_command', input: { command } }),
      toldModel: () => JSON.stringify(geminiFunctionResponses(gemini.turns().at(-1)!)),
    });
    // Gemini sends the model the rejection and takes its answer; it sends no tool_call update for the call.
    expect(r.afterReject).toBe(2);
    expect(r.told).toContain('was canceled by the user');
    expect(r.failed).toEqual([]);
    expect(gemini.requests.every((q) => q.auth === 'x-goog-api-key')).toBe(true);
    expect(gemini.sawCredential(keys.gemini)).toBe(true);
  }, 300_000);

  it('OpenCode: a text turn, then a shell call asked under permission bash "ask" and rejected', async () => {
    const config = {
      $schema: 'https://opencode.ai/config.json',
      model: 'nexus/opencode',
      provider: {
        nexus: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Nexus',
          options: { baseURL: `${chat.url}/v1`, apiKey: keys.opencode },
          models: { opencode: { name: 'stand-in' } },
        },
      },
      permission: { bash: 'ask', edit: 'ask' },
      autoupdate: false,
      share: 'disabled',
      snapshot: false,
    };
    const r = await drive({
      model: 'opencode',
      argv: OPENCODE_ACP_ARGV,
      env: {
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_SHARE: '1',
      },
      requests: () => chat.turns().filter((t) => t.body.model === 'opencode').length,
      shell: (command) => ({ name: 'bash', input: { command, description: 'make the marker' } }),
      toldModel: () =>
        JSON.stringify(
          chatToolResults(
            chat
              .turns()
              .filter((t) => t.body.model === 'opencode')
              .at(-1)!,
          ),
        ),
    });
    // OpenCode ends the turn at the rejection: the model is not asked again; the call's card says why.
    expect(r.afterReject).toBe(1);
    expect(r.failed.join()).toContain('The user rejected permission to use this specific tool call.');
    // It asks for the usage chunk the gateway counts.
    const own = chat.turns().filter((t) => t.body.model === 'opencode');
    expect(own.every((t) => (t.body.stream_options as { include_usage?: boolean }).include_usage)).toBe(true);
    expect(chat.sawCredential(keys.opencode)).toBe(true);
  }, 300_000);

  it('Qwen Code: a text turn, then a shell call asked in mode default (session/set_mode) and rejected', async () => {
    // Its managed memory is a subagent with shell and write tools that runs after every turn: off.
    await dockerExec(container, ['sh', '-c', 'mkdir -p ~/.qwen && cat > ~/.qwen/settings.json'], {
      stdin: JSON.stringify({ memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false } }),
    });
    const r = await drive({
      model: 'qwen',
      argv: QWEN_ACP_ARGV,
      env: { OPENAI_API_KEY: keys.qwen, OPENAI_BASE_URL: `${chat.url}/v1`, OPENAI_MODEL: 'qwen' },
      requests: () => chat.turns().filter((t) => t.body.model === 'qwen').length,
      mode: 'default',
      shell: (command) => ({ name: 'run_shell_command', input: { command } }),
      toldModel: () =>
        JSON.stringify(
          chatToolResults(
            chat
              .turns()
              .filter((t) => t.body.model === 'qwen')
              .at(-1)!,
          ),
        ),
    });
    // Qwen ends the turn at the rejection too.
    expect(r.afterReject).toBe(1);
    expect(r.failed.join()).toContain('was canceled by the user');
    const own = chat.turns().filter((t) => t.body.model === 'qwen');
    expect(own.every((t) => (t.body.stream_options as { include_usage?: boolean }).include_usage)).toBe(true);
    expect(chat.sawCredential(keys.qwen)).toBe(true);
  }, 300_000);
});
