import { z } from 'zod';
import { ReviewCounts, SessionAttention } from '../../../../shared/attention';
import {
  AgentCliInfo,
  AgentKind,
  DockerState,
  UsageEstimate,
  UsageTotals,
  NatsState,
  VaultState,
} from '../../../../shared/contract';
import { estimateWords } from '../../../../shared/usage-words';
import { FleetSummary, SessionPage } from '../../../../shared/contract/attention';
import { NeedsYouItem, needsYouLine, whatNeedsYou } from '../../../../shared/needs-you';
import { defineTool } from '../tool';

const Count = z.object({ used: z.number().int(), limit: z.number().int() });

export const NexusInfo = z.object({
  version: z.string(),
  /** Each agent kind's CLI the workers run, pinned (the first kind is the default). */
  agentClis: z.array(z.object({ kind: AgentKind, label: z.string(), cli: AgentCliInfo })),
  /** Model tokens the gateway counted today (UTC), from the providers' own answers. */
  modelUseToday: UsageTotals,
  /** What today's tokens cost at the price table's prices: an estimate in USD, with the models that have no price. */
  modelCostTodayEstimate: UsageEstimate,
  startedAt: z.string(),
  uptimeSeconds: z.number().int(),
  docker: DockerState,
  nats: NatsState,
  vault: VaultState,
  quota: z.object({
    workspaces: Count.describe('Workspaces against the configured maximum'),
    sessionsPerWorkspace: z.object({
      /** The cap a create meets: the configured quota, or fewer when a workspace container's memory holds fewer. */
      limit: z.number().int(),
      /** quota.maxSessionsPerWorkspace as configured. */
      configured: z.number().int(),
      /** Sessions one workspace container holds: docker.memoryBytes over quota.sessionMemoryBytes. */
      memoryHolds: z.number().int(),
      /** The most sessions any one workspace has. */
      highest: z.number().int(),
      /** Workspaces that cannot take another session. */
      full: z.array(z.string()),
    }),
  }),
  fleet: z.object({
    workspaces: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
    sessions: z.object({ total: z.number().int(), byLevel: z.record(z.string(), z.number().int()) }),
  }),
  /**
   * Everything that needs the operator, as the app's Overview and `nexus status` list it: the vault,
   * Docker or NATS when they stop work, then sessions (oldest first), then the review queue.
   */
  needsYou: z.array(NeedsYouItem),
  /** The sessions' roll-up: which sessions need the operator and why (oldest first), attention and review-queue counts. */
  attention: z.object({
    counts: FleetSummary.shape.counts,
    needsYou: z.array(SessionAttention),
    review: ReviewCounts,
  }),
  /** Only with `detail: "sessions"`: one page of the per-session roll-up. */
  sessions: SessionPage.optional(),
});

export const getNexusInfo = defineTool({
  name: 'get_nexus_info',
  title: 'Nexus state',
  description:
    'The state of Nexus: version, uptime, whether Docker, NATS and the vault are usable (and how the vault ' +
    'opens: keychain, passphrase or key file), quota use ' +
    'against the configured limits, fleet counts, what needs the operator and why (the vault, Docker or NATS ' +
    'when they stop work, sessions that wait, the review queue), and pending ' +
    'review-queue counts. With detail "sessions" it adds one page of the per-session roll-up (level and ' +
    'reason of every session); pass nextCursor back as cursor for the next page.',
  // Everything comes from the attention service's cached roll-up (kept current by events): no
  // engine call and no per-session list unless asked for.
  ops: ['app.info', 'attention.summary', 'attention.sessions', 'usage.get'],
  input: {
    detail: z.enum(['sessions']).optional().describe('"sessions" adds a page of the per-session roll-up'),
    cursor: z.string().max(20).optional().describe('nextCursor of the previous page (with detail "sessions")'),
    limit: z.number().int().min(1).max(200).optional().describe('Sessions per page, default 50'),
  },
  output: NexusInfo,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (args, call, env) => {
    const [info, fleet, usage, page] = await Promise.all([
      call('app.info', {}),
      call('attention.summary', {}),
      call('usage.get', {}),
      args.detail === 'sessions'
        ? call('attention.sessions', { cursor: args.cursor, limit: args.limit ?? 50 })
        : Promise.resolve(undefined),
    ]);
    const perWorkspace = fleet.workspaces.sessions;
    const configured = env.quota.maxSessionsPerWorkspace;
    const memoryHolds = env.quota.sessionsMemoryHolds;
    const limit = Math.min(configured, memoryHolds);
    const total = Object.values(fleet.counts).reduce((a, b) => a + b, 0);
    return {
      version: info.version,
      agentClis: info.agentClis,
      modelUseToday: usage.totals,
      modelCostTodayEstimate: usage.estimate,
      startedAt: info.startedAt,
      uptimeSeconds: info.uptimeSeconds,
      docker: info.docker,
      nats: info.nats,
      vault: info.vault,
      quota: {
        workspaces: { used: fleet.workspaces.total, limit: env.quota.maxWorkspaces },
        sessionsPerWorkspace: {
          limit,
          configured,
          memoryHolds,
          highest: Math.max(0, ...Object.values(perWorkspace)),
          full: Object.entries(perWorkspace)
            .filter(([, n]) => n >= limit)
            .map(([name]) => name),
        },
      },
      fleet: {
        workspaces: { total: fleet.workspaces.total, byStatus: fleet.workspaces.byStatus },
        sessions: { total, byLevel: fleet.counts },
      },
      needsYou: whatNeedsYou({ app: info, fleet, review: fleet.review }),
      attention: { counts: fleet.counts, needsYou: fleet.needsYou, review: fleet.review },
      ...(page ? { sessions: page } : {}),
    };
  },
  summarize: (n) =>
    `Nexus ${n.version} (agent CLIs ${n.agentClis.map((a) => `${a.cli.package} ${a.cli.version}`).join(', ')}), ` +
    `up ${n.uptimeSeconds}s. ` +
    `Docker ${n.docker.state}, NATS ${n.nats.state}, vault ${n.vault.state}${n.vault.mode ? ` (${n.vault.mode})` : ''}. ` +
    `${n.quota.workspaces.used}/${n.quota.workspaces.limit} workspaces, ${n.fleet.sessions.total} session(s). ` +
    `${n.modelUseToday.total} model tokens today in ${n.modelUseToday.requests} requests, ` +
    `${estimateWords(n.modelCostTodayEstimate)}. ` +
    (n.needsYou.length === 0
      ? 'Nothing needs you.'
      : `${n.needsYou.length} thing(s) need you: ` +
        `${n.needsYou.map((i) => needsYouLine(i, (a) => `${a.workspaceName}/${a.sessionName} — ${a.reason}`)).join('; ')}.`) +
    ` Review queue: ${n.attention.review.memories} memories, ${n.attention.review.skills} skills.` +
    (n.sessions
      ? ` Sessions ${n.sessions.sessions.length} of ${n.sessions.total}` +
        `${n.sessions.nextCursor ? `, next cursor ${n.sessions.nextCursor}` : ''}.`
      : ''),
});
