import { z } from 'zod';
import { AgentKind } from './agent-kind';
import { operation } from './define';
import { ChangesSummary, Session } from './sessions';
import { WorkspaceRef } from './workspaces';

/** One attempt of a group: its session (null once deleted), what it ran, and where it stands. */
export const Attempt = z.object({
  position: z.number().int().positive(),
  sessionId: z.string(),
  name: z.string(),
  branch: z.string(),
  agent: AgentKind,
  session: Session.nullable(),
  /** Its branch beside the base (null: not readable now; `note` says why). */
  changes: ChangesSummary.nullable(),
  /** Turns its agent has ended (one checkpoint each). */
  turns: z.number().int().nonnegative(),
  note: z.string().nullable(),
});
export type Attempt = z.infer<typeof Attempt>;

/** One prompt started as N sessions; once one is kept, the others are deleted and their branches kept a week. */
export const AttemptGroup = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  prompt: z.string(),
  keptSessionId: z.string().nullable(),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
  attempts: z.array(Attempt),
});
export type AttemptGroup = z.infer<typeof AttemptGroup>;

const GroupName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,59}$/, 'use 1-60 lowercase letters, digits, dots, dashes and underscores')
  .refine((s) => !s.includes('..') && !s.endsWith('.'), 'not a valid branch name')
  .describe('The group name: its sessions are <name>-1 … <name>-N');
const GroupId = z.string().min(1).max(100).describe('An attempt group id');

export const attemptOperations = {
  'attempts.start': operation({
    summary:
      'Try a prompt N ways: start 2–10 sessions (any mix of agent kinds) in a workspace as one group, each with the ' +
      'same initial message; compare them, then keep one.',
    access: 'write',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        workspace: WorkspaceRef,
        name: GroupName,
        prompt: z.string().min(1).max(100_000).describe('The initial message every attempt starts with'),
        agents: z.array(AgentKind).min(2).max(10).describe('One agent kind per attempt, in order'),
      })
      .strict(),
    output: AttemptGroup,
  }),
  'attempts.list': operation({
    summary: "A workspace's attempt groups (or all), each with its attempts side by side: diff stat, turns, state.",
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef.optional() }).strict(),
    output: z.object({ groups: z.array(AttemptGroup) }),
  }),
  'attempts.get': operation({
    summary: 'One attempt group with its attempts side by side: diff stat, turns, state.',
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ group: GroupId }).strict(),
    output: AttemptGroup,
  }),
  'attempts.keep': operation({
    summary:
      "Keep one attempt: its session and branch stay; the group's other sessions are deleted, their branches kept " +
      'for a week, then deleted.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ group: GroupId, session: z.string().min(1).max(200).describe('The session to keep') }).strict(),
    output: AttemptGroup,
  }),
};

export const attemptEvents = {
  /** An attempt group was started or decided. */
  'attempts.changed': z.object({ groupId: z.string(), workspaceId: z.string() }),
};
