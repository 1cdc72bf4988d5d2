import { z } from 'zod';
import { FleetAttention } from '../../../../shared/attention';
import { AgentCliInfo, DockerState, NatsState, VaultState } from '../../../../shared/contract';
import { defineTool } from '../tool';

const Count = z.object({ used: z.number().int(), limit: z.number().int() });

export const NexusInfo = z.object({
  version: z.string(),
  /** The agent CLI (Claude Code) the workers run, pinned. */
  agentCli: AgentCliInfo,
  startedAt: z.string(),
  uptimeSeconds: z.number().int(),
  docker: DockerState,
  nats: NatsState,
  vault: VaultState,
  quota: z.object({
    workspaces: Count.describe('Workspaces against the configured maximum'),
    sessionsPerWorkspace: z.object({
      limit: z.number().int(),
      /** The most sessions any one workspace has. */
      highest: z.number().int(),
      /** Workspaces that cannot take another session. */
      full: z.array(z.string()),
    }),
  }),
  fleet: z.object({
    workspaces: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
    /** Session totals by attention level (from the roll-up: it already holds every session). */
    sessions: z.object({ total: z.number().int(), byLevel: z.record(z.string(), z.number().int()) }),
  }),
  /** The attention roll-up (attention.get): per-session level and reason, fleet counts, review-queue counts. */
  attention: FleetAttention,
});

const tally = (values: string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
};

export const getNexusInfo = defineTool({
  name: 'get_nexus_info',
  title: 'Nexus state',
  description:
    'The state of Nexus: version, uptime, whether Docker, NATS and the vault are usable, quota use against the configured limits, fleet counts, and the attention roll-up — which sessions need the operator and why, plus pending review-queue counts.',
  // Sessions are counted from the attention roll-up (kept current by events) rather than a second
  // sessions.list, which reconciles every session and dominated this call with a large fleet.
  ops: ['app.info', 'workspaces.list', 'attention.get'],
  input: {},
  output: NexusInfo,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (_args, call, env) => {
    const [info, { workspaces }, attention] = await Promise.all([
      call('app.info', {}),
      call('workspaces.list', {}),
      call('attention.get', {}),
    ]);
    const perWorkspace = tally(attention.sessions.map((s) => s.workspaceName));
    const limit = env.quota.maxSessionsPerWorkspace;
    return {
      version: info.version,
      agentCli: info.agentCli,
      startedAt: info.startedAt,
      uptimeSeconds: info.uptimeSeconds,
      docker: info.docker,
      nats: info.nats,
      vault: info.vault,
      quota: {
        workspaces: { used: workspaces.length, limit: env.quota.maxWorkspaces },
        sessionsPerWorkspace: {
          limit,
          highest: Math.max(0, ...Object.values(perWorkspace)),
          full: workspaces.filter((w) => (perWorkspace[w.name] ?? 0) >= limit).map((w) => w.name),
        },
      },
      fleet: {
        workspaces: { total: workspaces.length, byStatus: tally(workspaces.map((w) => w.status)) },
        sessions: { total: attention.sessions.length, byLevel: attention.counts },
      },
      attention,
    };
  },
  summarize: (n) =>
    `Nexus ${n.version} (agent CLI ${n.agentCli.package} ${n.agentCli.version}), up ${n.uptimeSeconds}s. Docker ${n.docker.state}, NATS ${n.nats.state}, vault ${n.vault.state}. ` +
    `${n.quota.workspaces.used}/${n.quota.workspaces.limit} workspaces, ${n.fleet.sessions.total} session(s). ` +
    (n.attention.counts.needs_you === 0
      ? 'Nothing needs you.'
      : `${n.attention.counts.needs_you} need(s) you: ${n.attention.needsYou.map((a) => `${a.workspaceName}/${a.sessionName} — ${a.reason}`).join('; ')}.`) +
    ` Review queue: ${n.attention.review.memories} memories, ${n.attention.review.skills} skills.`,
});
