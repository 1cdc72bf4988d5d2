import { z } from 'zod';
import { AgentPermission } from '../platform-gating';
import { Task } from '../platform-tools';
import { operation } from './define';
import { MirrorState, TaskIssue } from './tracker';

/** A token usable as a NATS subject segment and user-name suffix. */
const Id = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'letters, digits, dashes and underscores only');
const ToolName = z.string().min(1).max(100);

/**
 * An env value: plain text, or `{ vault }` naming a vault secret (its value reaches only the server's process).
 * Not `{ secret }`: results mask a `secret` property, so the editor would read the name back as "[REDACTED]".
 */
export const McpEnvValue = z.union([z.string().max(10_000), z.object({ vault: z.string().trim().min(1).max(200) })]);
export type McpEnvValue = z.infer<typeof McpEnvValue>;

/** One external stdio MCP server of an agent (seed "External MCP servers", `mcp_servers`). */
export const McpServerSpec = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, dashes and underscores')
      .refine((n) => n !== 'nexus' && n !== 'nexus-delegated', 'that name is reserved'),
    command: z.string().trim().min(1).max(500),
    args: z.array(z.string().max(2_000)).max(50).default([]),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,100}$/), McpEnvValue).default({}),
    /** Optional allow-list of the server's tool names; empty = expose all. */
    tools: z.array(z.string().min(1).max(100)).max(100).default([]),
    disabled: z.boolean().default(false),
  })
  .strict();
export type McpServerSpec = z.infer<typeof McpServerSpec>;

export const AgentRecord = z.object({
  id: z.string(),
  name: z.string(),
  project: z.string().nullable(),
  tools: z.array(z.string()),
  permissions: z.array(AgentPermission),
  mcpServers: z.array(McpServerSpec),
  autoStart: z.boolean(),
  maxAutoSessions: z.number().int(),
  createdAt: z.string(),
});
export type AgentRecord = z.infer<typeof AgentRecord>;

/**
 * A run's connection details. The password is not part of any operation's output: core hands it
 * to the worker launcher in process (core.platform.createRun), and it lives only in the managed
 * server's config file in the data dir.
 */
export const RunConnection = z.object({
  runId: z.string(),
  natsUrl: z.string(),
  user: z.string().nullable(),
  inboxPrefix: z.string(),
  subject: z.string(),
});

/** Who did something, in names a person reads ("flow · beta"), with the ids to link to. */
export const Actor = z.object({
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  workspaceId: z.string().nullable(),
  workspaceName: z.string().nullable(),
  sessionId: z.string().nullable(),
  sessionName: z.string().nullable(),
});
export type Actor = z.infer<typeof Actor>;

/** A session name for a task: its title as a slug plus the task id's start, so two tasks never collide. */
export function sessionNameForTask(task: { id: string; title: string }): string {
  const slug = task.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const suffix = task.id
    .replace(/[^a-z0-9]/gi, '')
    .slice(0, 6)
    .toLowerCase();
  return slug ? `${slug}-${suffix}` : `task-${suffix}`;
}

/** "flow · beta", "flow", or the agent's own name: how an actor reads in one line. */
export function actorLabel(a: Actor): string {
  if (a.workspaceName) return a.sessionName ? `${a.workspaceName} · ${a.sessionName}` : a.workspaceName;
  return a.agentName ?? 'unknown agent';
}

export const BoardComment = z.object({
  id: z.string(),
  body: z.string(),
  createdAt: z.string(),
  by: Actor,
  /** Its way to the task's tracker issue; absent when the task has none. */
  mirror: MirrorState.optional(),
});
export type BoardComment = z.infer<typeof BoardComment>;

export const BoardTask = Task.extend({
  workspaceId: z.string().nullable(),
  workspaceName: z.string().nullable(),
  /** The run that created it (task.subtask / task.delegate), null for one the operator or a session made. */
  createdBy: Actor.nullable(),
  /** Sessions that ran on it, newest first. */
  sessions: z.array(z.object({ id: z.string(), name: z.string(), workspaceName: z.string() })),
  comments: z.array(BoardComment),
  /** The tracker issue it is linked to (docs/tracker.md). */
  issue: TaskIssue.nullable().optional(),
});
export type BoardTask = z.infer<typeof BoardTask>;

export const platformOperations = {
  'agents.create': operation({
    summary: 'Create an agent record: its project and tool allow-list (empty = every available platform tool).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        name: z.string().trim().min(1).max(100),
        project: z.string().trim().min(1).max(200).optional(),
        tools: z.array(ToolName).max(50).default([]),
      })
      .strict(),
    output: AgentRecord,
  }),
  'agents.list': operation({
    summary: 'Agent records with their projects and tool allow-lists.',
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ agents: z.array(AgentRecord) }),
  }),
  'agents.forWorkspace': operation({
    summary: "The workspace's agent record (created on first use): allow-list, permissions, MCP servers, auto-start.",
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: z.string().min(1).max(200) }).strict(),
    output: AgentRecord,
  }),
  'agents.update': operation({
    summary:
      'Change an agent record: tool allow-list (empty = every gated-available tool), permissions, MCP ' +
      'servers, auto-start. Running sessions follow at once.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        id: Id,
        tools: z.array(ToolName).max(50).optional(),
        permissions: z.array(AgentPermission).optional(),
        mcpServers: z.array(McpServerSpec).max(20).optional(),
        autoStart: z.boolean().optional(),
        maxAutoSessions: z.number().int().min(1).max(20).optional(),
      })
      .strict(),
    output: AgentRecord,
  }),
  'board.list': operation({
    summary: 'The board: every task with its status, workspace, the sessions on it and the comments, newest first.',
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ workspace: z.string().min(1).max(200).optional() }).strict(),
    output: z.object({ tasks: z.array(BoardTask) }),
  }),
  'tasks.setStatus': operation({
    summary: 'Move a task on the board (e.g. to done or cancelled).',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ id: Id, status: Task.shape.status }).strict(),
    output: z.object({ id: z.string(), status: z.string() }),
  }),
  'tasks.create': operation({
    summary: 'Create a task (a goal, or a step under one) that runs can work on.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        title: z.string().trim().min(1).max(200),
        body: z.string().max(20_000).default(''),
        parentId: Id.optional(),
      })
      .strict(),
    output: z.object({ id: z.string(), title: z.string(), status: z.string(), parentId: z.string().nullable() }),
  }),
  'runs.create': operation({
    summary: 'Start a run of an agent: creates its own NATS user, allowed to call platform tools only as itself.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ agentId: Id, taskId: Id.optional(), sessionId: Id.optional() }).strict(),
    output: RunConnection,
  }),
  'runs.end': operation({
    summary: 'End a run: records its status and summary and removes its NATS user (its connection is dropped).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        runId: Id,
        status: z.enum(['finished', 'failed', 'cancelled']).default('finished'),
        summary: z.string().max(20_000).optional(),
      })
      .strict(),
    output: z.object({ runId: z.string(), status: z.string() }),
  }),
};

export const platformEvents = {
  /** A task or a comment changed (the Board refetches). */
  'board.changed': z.object({ taskId: z.string() }),
};
