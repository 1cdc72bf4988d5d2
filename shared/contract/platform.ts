import { z } from 'zod';
import { operation } from './define';

/** A token usable as a NATS subject segment and user-name suffix. */
const Id = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'letters, digits, dashes and underscores only');
const ToolName = z.string().min(1).max(100);

export const AgentRecord = z.object({
  id: z.string(),
  name: z.string(),
  project: z.string().nullable(),
  tools: z.array(z.string()),
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

export const platformOperations = {
  'agents.create': operation({
    summary: 'Create an agent record: its project and tool allow-list (empty = every available platform tool).',
    access: 'operator',
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
    input: z.object({}).strict(),
    output: z.object({ agents: z.array(AgentRecord) }),
  }),
  'tasks.create': operation({
    summary: 'Create a task (a goal, or a step under one) that runs can work on.',
    access: 'operator',
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
    input: z.object({ agentId: Id, taskId: Id.optional(), sessionId: Id.optional() }).strict(),
    output: RunConnection,
  }),
  'runs.end': operation({
    summary: 'End a run: records its status and summary and removes its NATS user (its connection is dropped).',
    access: 'operator',
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

export const platformEvents = {};
