import { testCore } from './core';
import type { ToolReply } from '../../shared/platform-tools';
import type { Core } from '../../main/core';
import type { CoreConfigInput } from '../../main/core/config';
import { connectRun, type RunClient } from './run-client';
import type { RunCredentials } from '../../main/core/platform/platform-service';
import type { Agent } from '../../main/core/platform/store/agents';

/** Test support: a real core with its managed nats-server, and helpers to start agents' runs. */
export async function platformFixture(config: CoreConfigInput = {}) {
  const t = await testCore(config);
  const clients: RunClient[] = [];
  const core: Core = t.core;
  return {
    core,
    dataDir: t.dataDir,
    agent: (name: string, opts: { project?: string; tools?: string[] } = {}): Agent =>
      core.platform.createAgent({ name, ...opts }),
    /** Starts a run of `agent` on a fresh task (or none) and connects as it. */
    run: async (agent: Agent, opts: { task?: boolean } = {}): Promise<{ client: RunClient; creds: RunCredentials }> => {
      const task = opts.task === false ? null : core.platform.createTask({ title: `work of ${agent.name}` });
      const creds = await core.platform.createRun(agent.id, task?.id ?? null);
      const client = await connectRun(creds);
      clients.push(client);
      return { client, creds };
    },
    cleanup: async () => {
      for (const c of clients) await c.close().catch(() => undefined);
      await t.cleanup();
    },
  };
}

/** The result of a successful call, or a thrown error naming the failure. */
export function okResult(reply: ToolReply): Record<string, unknown> {
  if ('error' in reply) throw new Error(`tool failed: ${reply.error.code}: ${reply.error.message}`);
  return reply.result as Record<string, unknown>;
}
