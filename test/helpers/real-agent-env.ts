import { randomUUID } from 'node:crypto';
import type { CoreConfigInput } from '../../main/core/config';
import { testAcpCliDir, testAgentCliDir, testCodexCliDir } from './agent-cli';
import { startGeminiApi, type GeminiApi } from './gemini-api';
import { startChatCompletionsApi, type ChatCompletionsApi } from './chat-completions-api';
import { startResponsesApi, type ResponsesApi } from './responses-api';
import { ensureTestWorkerImage, testBaseImage } from './docker';
import { serveGitRepo } from './git-http-server';
import { startModelApi, type ModelApi } from './model-api';
import { TEST_NETWORK, workerHostAddress } from './network';

/**
 * What a Nexus needs around it to run the real, pinned agent CLI in its workspaces, shared by the
 * vitest harness (real-agent-fleet.ts) and the Playwright fixtures (which start `nexus serve` with
 * `env`): workers on the product's default `nexus` bridge (core puts NATS on its gateway), the
 * model stand-in listening on that gateway (NEXUS_AGENT_BASE_URL), the pinned CLI
 * (NEXUS_AGENT_CLI_DIR), a public git repository served on the same address, and a canary API key
 * for the vault. Nothing here depends on a test runner.
 */
export interface RealAgentEnv {
  /** The worker network (`nexus`) and its gateway, where workers reach the host's servers. */
  network: string;
  gateway: string;
  /** The scripted model API behind every session's ANTHROPIC_BASE_URL. */
  api: ModelApi;
  repo: Awaited<ReturnType<typeof serveGitRepo>>;
  /** The directory holding the pinned CLI's Linux binary (mounted read-only at /opt/nexus/agent). */
  cliDir: string;
  /** An API key that must never show anywhere but the stand-in's x-api-key header. */
  canary: string;
  /** The scripted Responses API behind every Codex session (NEXUS_CODEX_BASE_URL). */
  codexApi: ResponsesApi;
  /** The pinned Codex CLI's vendor directory (mounted read-only at /opt/nexus/codex). */
  codexCliDir: string;
  /** An OpenAI API key that must never show anywhere but the Responses stand-in's bearer header. */
  codexCanary: string;
  /** The scripted Gemini API behind every Gemini CLI session (NEXUS_GEMINI_BASE_URL). */
  geminiApi: GeminiApi;
  /** A Gemini API key that must never show anywhere but the Gemini stand-in's x-goog-api-key header. */
  geminiCanary: string;
  /** The scripted Chat Completions API behind every OpenCode and Qwen Code session. */
  chatApi: ChatCompletionsApi;
  /** An OpenAI API key for OpenCode and Qwen Code that must never show anywhere but the chat stand-in's bearer. */
  chatCanary: string;
  /** Core config for `serve()` / `openCore()`. */
  config: CoreConfigInput;
  /** The same, as environment for `nexus serve` (main/env-config.ts). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts the stand-in and the repository (public, or demanding `repoToken` as its password), makes
 * sure the worker image and the pinned CLI are there.
 */
export async function startRealAgentEnv(opts: { repoToken?: string } = {}): Promise<RealAgentEnv> {
  const cliDir = testAgentCliDir();
  const codexCliDir = testCodexCliDir();
  await ensureTestWorkerImage();
  const gateway = await workerHostAddress();
  const api = await startModelApi({ host: gateway });
  const codexApi = await startResponsesApi({ host: gateway });
  const geminiApi = await startGeminiApi({ host: gateway });
  const geminiCliDir = testAcpCliDir('gemini');
  const chatApi = await startChatCompletionsApi({ host: gateway });
  const opencodeCliDir = testAcpCliDir('opencode');
  const qwenCliDir = testAcpCliDir('qwen');
  const copilotCliDir = testAcpCliDir('copilot');
  const repo = await serveGitRepo(opts.repoToken ?? null).catch(async (e: unknown) => {
    await api.close();
    await codexApi.close();
    await geminiApi.close();
    await chatApi.close();
    throw e;
  });
  // The install's npm prefix (the helper returns the vendor directory inside it).
  const codexPrefix = codexCliDir.replace(/\/node_modules\/.*$/, '');
  const baseImage = testBaseImage();
  return {
    network: TEST_NETWORK,
    gateway,
    api,
    repo,
    cliDir,
    canary: `sk-ant-api03-canary-${randomUUID()}`,
    codexApi,
    codexCliDir,
    codexCanary: `sk-proj-canary-${randomUUID()}`,
    geminiApi,
    geminiCanary: `AIza-canary-${randomUUID()}`,
    chatApi,
    chatCanary: `sk-chat-canary-${randomUUID()}`,
    config: {
      // 3 GiB: room for the 10 sessions the agent-start and agent-idle benches put in one workspace at
      // quota.sessionMemoryBytes (256 MiB each; a create beyond what the container holds is refused).
      docker: { network: TEST_NETWORK, baseImage, memoryBytes: 3 * 1024 ** 3, pidsLimit: 1024 },
      // Any free port, kept in the data dir for a restart: the default (4782) is the one every other test file's
      // `nexus serve` asks for, so a core stopped and started again (the crash steps) lost it to them in between,
      // and its running agents, pointed at it, lost their model.
      gateway: { port: 0 },
      // The real CLI is slow to start on a loaded 2-core machine; the watchdog must not fire first.
      agent: {
        kinds: {
          claude: { cliDir, baseUrl: api.url },
          codex: { cliDir: codexPrefix, baseUrl: codexApi.url },
          gemini: { cliDir: geminiCliDir, baseUrl: geminiApi.url },
          opencode: { cliDir: opencodeCliDir, baseUrl: chatApi.url },
          qwen: { cliDir: qwenCliDir, baseUrl: chatApi.url },
          copilot: { cliDir: copilotCliDir, baseUrl: chatApi.url },
        },
        startupTimeoutMs: 240_000,
      },
    },
    env: {
      NEXUS_DOCKER_NETWORK: TEST_NETWORK,
      NEXUS_WORKER_BASE_IMAGE: baseImage,
      NEXUS_AGENT_CLI_DIR: cliDir,
      NEXUS_AGENT_BASE_URL: api.url,
      NEXUS_CODEX_CLI_DIR: codexPrefix,
      NEXUS_CODEX_BASE_URL: codexApi.url,
      NEXUS_GEMINI_CLI_DIR: geminiCliDir,
      NEXUS_GEMINI_BASE_URL: geminiApi.url,
      NEXUS_OPENCODE_CLI_DIR: opencodeCliDir,
      NEXUS_OPENCODE_BASE_URL: chatApi.url,
      NEXUS_QWEN_CLI_DIR: qwenCliDir,
      NEXUS_QWEN_BASE_URL: chatApi.url,
      NEXUS_COPILOT_CLI_DIR: copilotCliDir,
      NEXUS_COPILOT_BASE_URL: chatApi.url,
    },
    close: async () => {
      await api.close();
      await codexApi.close();
      await geminiApi.close();
      await chatApi.close();
      await repo.close();
    },
  };
}

/** An operation called as the operator: the dispatcher in vitest, `rpc` over HTTP in Playwright. */
export type OperatorCall = (op: string, input: Record<string, unknown>) => Promise<unknown>;

/**
 * Stores `canary` in the (initialised, unlocked) vault as an `anthropic_api_key` secret and makes it
 * the agent's default credential, as the operator does in Settings → Agent. Returns the secret's id.
 */
/** Stores `canary` as an `openai_api_key` secret and makes it the default Codex credential (Settings → Agent). */
export async function giveCodexCredential(call: OperatorCall, canary: string, name = 'codex-key'): Promise<string> {
  const secret = (await call('secrets.create', { name, kind: 'openai_api_key', value: canary })) as { id: string };
  await call('agent.setDefaultCredential', { kind: 'codex', secretId: secret.id });
  return secret.id;
}

/** Stores `canary` as a `gemini_api_key` secret and makes it the default Gemini CLI credential. */
export async function giveGeminiCredential(call: OperatorCall, canary: string, name = 'gemini-key'): Promise<string> {
  const secret = (await call('secrets.create', { name, kind: 'gemini_api_key', value: canary })) as { id: string };
  await call('agent.setDefaultCredential', { kind: 'gemini', secretId: secret.id });
  return secret.id;
}

/** Stores `canary` as an `openai_api_key` secret and makes it the default credential of the chat-completions kinds. */
export async function giveChatCredential(call: OperatorCall, canary: string, name = 'chat-key'): Promise<string> {
  const secret = (await call('secrets.create', { name, kind: 'openai_api_key', value: canary })) as { id: string };
  for (const kind of ['opencode', 'qwen', 'copilot'])
    await call('agent.setDefaultCredential', { kind, secretId: secret.id });
  return secret.id;
}

export async function giveAgentCredential(call: OperatorCall, canary: string, name = 'agent-key'): Promise<string> {
  const secret = (await call('secrets.create', { name, kind: 'anthropic_api_key', value: canary })) as { id: string };
  await call('agent.setDefaultCredential', { kind: 'claude', secretId: secret.id });
  return secret.id;
}
