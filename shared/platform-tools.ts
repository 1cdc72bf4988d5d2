/**
 * The platform tools agents call from inside a worker (seed "Platform tools"): names, one-line
 * descriptions, zod argument and result schemas. Core's NATS handlers and the worker-side
 * nexus-mcp bridge both use these, so the tool surface is defined once.
 *
 * Wire protocol: a run publishes `{ tool, args }` as JSON on `tools.invoke.<runId>` and receives
 * the same `Reply` as every other boundary: `{ result }` or `{ error: { code, message } }` (shared/errors.ts).
 */
import { z } from 'zod';
import { replyOf, type Reply } from './errors';

export const MemoryScope = z.enum(['global', 'project', 'private']);
export type MemoryScope = z.infer<typeof MemoryScope>;

const Query = z.string().trim().min(1).max(500);
const Limit = z.number().int().min(1).max(50).default(10);
/** A new task's issue on its workspace's tracker (docs/tracker.md): read from the tracker, then linked. */
const TaskIssueArg = z
  .number()
  .int()
  .positive()
  .max(999_999_999)
  .optional()
  .describe("An issue number of your workspace's tracker to link the task to: its comments are mirrored there");

export const Memory = z.object({
  id: z.string(),
  content: z.string(),
  scope: MemoryScope,
  status: z.enum(['pending', 'active', 'rejected']),
  createdAt: z.string(),
});

export const Task = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  status: z.enum(['planned', 'ready_for_agent', 'in_progress', 'done', 'cancelled']),
  parentId: z.string().nullable(),
  dependsOn: z.array(z.string()),
  roleHint: z.string().nullable(),
  createdAt: z.string(),
});

export const SkillSummary = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.number().int(),
});

export const SkillSlug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'use 1-63 lowercase letters, digits and dashes')
  .describe('Skill slug, e.g. "release-checklist"');

const tool = <I extends z.ZodObject, O extends z.ZodType>(def: { description: string; args: I; result: O }) => def;

export const platformTools = {
  'memory.propose': tool({
    description:
      'Propose a memory (a fact or procedure worth recalling later). It waits in the review queue until a person approves it.',
    args: z
      .object({
        content: z.string().trim().min(1).max(10_000).describe('The memory, in plain prose'),
        scope: MemoryScope.default('private').describe(
          'global = every agent, project = agents of your project, private = only you',
        ),
      })
      .strict(),
    result: Memory,
  }),
  'memory.search': tool({
    description:
      'Full-text search over the approved memories you may read (global, your project, your own private ones).',
    args: z.object({ query: Query.describe('Words to look for'), limit: Limit }).strict(),
    result: z.object({ memories: z.array(Memory) }),
  }),
  'task.subtask': tool({
    description:
      'Create a planned subtask under the current goal that depends on your current task (ordered steps of your own work).',
    args: z
      .object({
        title: z.string().trim().min(1).max(200),
        body: z.string().max(20_000).default(''),
        issue: TaskIssueArg,
      })
      .strict(),
    result: Task,
  }),
  'task.delegate': tool({
    description:
      'Create a task ready for another agent, with no dependency and an optional role hint (parallel fan-out).',
    args: z
      .object({
        title: z.string().trim().min(1).max(200),
        body: z.string().max(20_000).default(''),
        roleHint: z
          .string()
          .trim()
          .min(1)
          .max(100)
          .optional()
          .describe('Which kind of agent should take it, e.g. "reviewer"'),
        issue: TaskIssueArg,
      })
      .strict(),
    result: Task,
  }),
  'board.comment': tool({
    description: "Post a progress comment on your task's board card, for people and teammates.",
    args: z.object({ body: z.string().trim().min(1).max(10_000) }).strict(),
    result: z.object({ id: z.string(), taskId: z.string(), body: z.string(), createdAt: z.string() }),
  }),
  'skill.propose': tool({
    description:
      'Propose a reusable procedure as a SKILL.md. It is scanned and waits for review; proposing an ' +
      'existing slug creates its next version.',
    args: z
      .object({
        slug: SkillSlug,
        name: z.string().trim().min(1).max(100),
        description: z.string().trim().min(1).max(500),
        markdown: z.string().min(1).max(100_000),
      })
      .strict(),
    result: z.object({
      id: z.string(),
      slug: z.string(),
      version: z.number().int(),
      status: z.literal('draft'),
      findings: z.array(z.object({ rule: z.string(), message: z.string() })),
    }),
  }),
  'skill.list': tool({
    description: 'List the approved skills: name, slug and description only. Use skill.view for the full text.',
    args: z.object({}).strict(),
    result: z.object({ skills: z.array(SkillSummary) }),
  }),
  'skill.view': tool({
    description: 'The full markdown of one approved skill.',
    args: z.object({ slug: SkillSlug }).strict(),
    result: SkillSummary.extend({ markdown: z.string() }),
  }),
  'run.search': tool({
    description:
      'Full-text search over your own finished runs (their summaries), to recall how you handled similar work.',
    args: z.object({ query: Query, limit: Limit }).strict(),
    result: z.object({
      runs: z.array(
        z.object({
          id: z.string(),
          summary: z.string(),
          status: z.string(),
          taskId: z.string().nullable(),
          endedAt: z.string().nullable(),
        }),
      ),
    }),
  }),
} as const;

export type PlatformTools = typeof platformTools;
export type ToolName = keyof PlatformTools;
export type ToolArgs<K extends ToolName> = z.output<PlatformTools[K]['args']>;
export type ToolResult<K extends ToolName> = z.output<PlatformTools[K]['result']>;
export const toolNames = Object.keys(platformTools) as ToolName[];
export const isToolName = (s: string): s is ToolName => Object.hasOwn(platformTools, s);

/**
 * A platform tool's name on MCP: `_` instead of `.` (`memory.search` → `memory_search`), since model APIs accept only
 * [A-Za-z0-9_-] in tool names. Agents prefix it with the server's name (Claude Code and Qwen Code as
 * `mcp__nexus__<name>`).
 */
export const mcpToolName = (tool: ToolName): string => tool.replace('.', '_');

export const ToolRequest = z.object({ tool: z.string().min(1).max(100), args: z.unknown().optional() });
export type ToolRequest = z.infer<typeof ToolRequest>;
export const ToolReply = replyOf(z.unknown());
export type ToolReply = Reply<unknown>;

/** NATS subjects; run ids and workspace ids are single tokens (no dots or wildcards). */
export const subjects = {
  toolsFor: (runId: string) => `tools.invoke.${runId}`,
  toolsAll: 'tools.invoke.*',
  inboxPrefixFor: (runId: string) => `_INBOX.${runId}`,
  hooksFor: (workspaceId: string) => `nexus.hooks.${workspaceId}`,
  hooksAll: 'nexus.hooks.*',
  /** A PermissionRequest hook asks here and waits; only core may publish on the replies prefix. */
  permissionsFor: (workspaceId: string) => `nexus.permissions.${workspaceId}`,
  permissionsAll: 'nexus.permissions.*',
  permissionRepliesFor: (workspaceId: string) => `nexus.permission-replies.${workspaceId}`,
  /** Core hands a workspace's hook relay the messages for its sessions here; only core may publish on it. */
  messagesFor: (workspaceId: string) => `nexus.messages.${workspaceId}`,
  messagesAll: 'nexus.messages.*',
  /** The relay answers a message's delivery under this prefix, the only subject its user may publish besides hooks. */
  messageRepliesFor: (workspaceId: string) => `nexus.message-replies.${workspaceId}`,
  /** Core asks a workspace's hook relay for a session's checkpoint here (shared/relay-checkpoint.ts); only core may publish. */
  checkpointsFor: (workspaceId: string) => `nexus.checkpoints.${workspaceId}`,
  checkpointsAll: 'nexus.checkpoints.*',
  /** The relay answers a checkpoint under this prefix. */
  checkpointRepliesFor: (workspaceId: string) => `nexus.checkpoint-replies.${workspaceId}`,
  /** An ACP session's bridge publishes what its agent writes here (resources/worker/nexus-acp-bridge). */
  acpFor: (workspaceId: string) => `nexus.acp.${workspaceId}`,
  acpAll: 'nexus.acp.*',
  /** Core, the ACP client, writes to a session's agent here; only core may publish on it. */
  acpInFor: (workspaceId: string, sessionId: string) => `nexus.acp-in.${workspaceId}.${sessionId}`,
  acpInPrefixFor: (workspaceId: string) => `nexus.acp-in.${workspaceId}`,
};
export const SubjectToken = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'letters, digits, dashes and underscores only');
