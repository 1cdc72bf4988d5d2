import { mcpToolName, toolNames } from '../../../../shared/platform-tools';
import { acpDriver, openAiCompatibleModel } from '../acp';
import { QWEN_ACP_ARGV, QWEN_CLI, QWEN_CLI_MOUNT } from './cli';

/**
 * Qwen Code defers every MCP tool behind its `tool_search` / `tool_call` bridge and names the deferred tools in a
 * reminder built when the session starts, before it connects the servers of `session/new`: so its model is never told
 * they exist (measured on 0.24.4: the tools are listed and found by `tool_search`, but named nowhere in a request).
 * `tools.visible` declares Nexus's platform tools up front, as every other kind sees them (docs/acp.md).
 */
export const QWEN_VISIBLE_TOOLS: readonly string[] = toolNames.map((t) => `mcp__nexus__${mcpToolName(t)}`);

/**
 * Qwen Code (`qwen --acp`), an ACP kind: docs/agents.md, "ACP kinds". It speaks OpenAI chat completions to
 * OPENAI_BASE_URL (the session's gateway) with OPENAI_API_KEY (the session's gateway credential). Its own default mode
 * (`auto`) lets a model classifier decide; Nexus sets `default`, in which it asks before a shell call. It takes HTTP MCP
 * servers (0.24.4 answers `mcpCapabilities {http, sse}`), so its sessions get the container's resident nexus-mcp and no
 * nexus-mcp process each (docs/performance.md, "ACP sessions").
 */
export const qwenDriver = acpDriver({
  kind: 'qwen',
  label: 'Qwen Code',
  speaker: 'Qwen',
  cli: { spec: QWEN_CLI, mountTarget: QWEN_CLI_MOUNT, argv: QWEN_ACP_ARGV },
  model: openAiCompatibleModel({ kind: 'openai_api_key', label: 'OpenAI API key' }),
  env: ({ gatewayUrl, model }) => ({
    OPENAI_BASE_URL: `${gatewayUrl}/v1`,
    ...(model ? { OPENAI_MODEL: model } : {}),
  }),
  keyVar: 'OPENAI_API_KEY',
  askMode: 'default',
  mcpTransports: ['stdio', 'http'],
  sessionStore: '.qwen/projects',
  // Its managed memory is a subagent with shell and write tools that runs after every turn (measured: docs/agents.md).
  // Its todo tool is off by default (0.24.4: "disabled by default"); on, its list is the session's plan (ACP `plan`).
  userSettings: {
    file: '.qwen/settings.json',
    merge: {
      memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
      tools: { todoWrite: { enabled: true }, visible: QWEN_VISIBLE_TOOLS },
    },
  },
  credentialFiles: [String.raw`\.qwen/oauth_creds\.json`],
});
