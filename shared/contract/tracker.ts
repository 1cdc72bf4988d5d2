import { z } from 'zod';
import { Task } from '../platform-tools';
import { operation } from './define';
import { AgentKind, Session, SessionName } from './sessions';
import { WorkspaceRef } from './workspaces';

/** The trackers Nexus mirrors to: one adapter each in main/core/tracker/ (docs/tracker.md). */
export const TrackerKind = z.enum(['redmine', 'github']);
export type TrackerKind = z.infer<typeof TrackerKind>;

/** An issue by its number, as the tracker shows it: `42` or `#42`. */
export const IssueRef = z
  .union([z.number().int().positive().max(999_999_999), z.string().regex(/^#?[1-9][0-9]{0,8}$/, 'an issue number')])
  .transform((v) => (typeof v === 'number' ? v : Number(v.replace('#', ''))))
  .describe('The issue number (42 or "#42")');

const TrackerUrl = z
  .string()
  .trim()
  .max(500)
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'an http(s) address')
  .describe("The tracker's address: Redmine's root, or GitHub's API (https://api.github.com)");

/** What a task's status becomes on the tracker: a Redmine status id ("3"), or GitHub's `open` / `closed`. */
const StatusMap = z.partialRecord(Task.shape.status, z.string().trim().min(1).max(50)).default({});

/** Issues that start sessions by themselves: assigned to someone, or (GitHub) carrying a label. */
export const TrackerPickup = z
  .object({
    label: z.string().trim().min(1).max(100).optional(),
    assignee: z.string().trim().min(1).max(100).optional(),
    /** How often Nexus asks; at least a minute, which Redmine and GitHub's rate limits both tolerate. */
    everySeconds: z.number().int().min(60).max(86_400).default(300),
    agent: AgentKind.optional(),
  })
  .strict()
  .refine((p) => p.label !== undefined || p.assignee !== undefined, 'name a label or an assignee');
export type TrackerPickup = z.infer<typeof TrackerPickup>;

export const TrackerSettings = z
  .object({
    kind: TrackerKind,
    url: TrackerUrl,
    /** Redmine: the project's identifier; GitHub: owner/repo. */
    project: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.-]{1,100}(\/[A-Za-z0-9_.-]{1,100})?$/, 'a project identifier, or owner/repo'),
    /** The vault secret holding the API key (Redmine) or token (GitHub); its value never leaves core. */
    secretId: z.string().min(1).max(100),
    statusMap: StatusMap,
    pickup: TrackerPickup.nullable().default(null),
  })
  .strict();
export type TrackerSettings = z.infer<typeof TrackerSettings>;

/** A task's tracker issue, as the board shows it. */
export const TaskIssue = z.object({
  taskId: z.string(),
  workspaceId: z.string(),
  number: z.number().int(),
  /** "#42", how the tracker names it (not `key`: results mask a `key` property). */
  ref: z.string(),
  title: z.string().nullable(),
  url: z.string(),
});
export type TaskIssue = z.infer<typeof TaskIssue>;

/** A comment's or status change's way to the tracker: stored first, then sent (docs/tracker.md, "The outbox"). */
export const MirrorState = z.enum(['pending', 'failed', 'sent']);
export type MirrorState = z.infer<typeof MirrorState>;

export const OutboxEntry = z.object({
  id: z.string(),
  taskId: z.string(),
  issue: z.number().int(),
  kind: z.enum(['comment', 'status', 'note']),
  state: MirrorState,
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
});
export type OutboxEntry = z.infer<typeof OutboxEntry>;

const TaskId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);

export const trackerOperations = {
  'tracker.get': operation({
    summary: "A workspace's tracker: kind, address, project, the vault secret's id, status mapping and pick-up rule.",
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: z.object({ workspaceId: z.string(), tracker: TrackerSettings.nullable() }),
  }),
  'tracker.set': operation({
    summary:
      "Set (or with null, clear) a workspace's tracker. Needs a vault credential: it decides where a vault " +
      "secret's value is sent.",
    access: 'vault',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        workspace: WorkspaceRef,
        tracker: TrackerSettings.nullable().describe(
          'kind, url, project, secretId (a vault secret), statusMap, pickup; null clears it',
        ),
      })
      .strict(),
    output: z.object({ workspaceId: z.string(), tracker: TrackerSettings.nullable() }),
  }),
  'tracker.link': operation({
    summary: "Link a task to an issue of its workspace's tracker: its comments and status changes are mirrored there.",
    access: 'write',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ taskId: TaskId.describe("The board task (a session's taskId)"), issue: IssueRef }).strict(),
    output: TaskIssue,
  }),
  'tracker.startSession': operation({
    summary:
      'Start a session on a tracker issue: its title and body are the first message, its number is in the branch, ' +
      "and the issue is linked to the session's task.",
    access: 'write',
    delegated: 'own-workspace',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        workspace: WorkspaceRef,
        issue: IssueRef,
        name: SessionName.optional().describe(
          'Session name; default issue-<n>-<words of the title>, and a name without issue-<n> gets it in front',
        ),
        agent: AgentKind.optional(),
      })
      .strict(),
    output: Session,
  }),
  'tracker.outbox': operation({
    summary: 'What waits to reach the trackers (pending, failed) and what recently did, oldest first.',
    access: 'read',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ taskId: TaskId.optional() }).strict(),
    output: z.object({ entries: z.array(OutboxEntry) }),
  }),
};
