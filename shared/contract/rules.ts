import { z } from 'zod';
import { operation } from './define';

/**
 * Approval rules (docs/permissions.md): the operator's own allow / ask / deny rules, evaluated in core where every
 * agent kind's permission request arrives, never by a model. Deny wins over ask, ask over allow; a call no rule
 * decides is asked. The shipped default set is part of every evaluation and cannot be edited, only added to.
 */
export const RuleAction = z.enum(['allow', 'ask', 'deny']);
export type RuleAction = z.infer<typeof RuleAction>;

/** What a rule is about: a shell call, a file read or edit, a network fetch, an MCP tool, another tool, or any. */
export const RuleTool = z.enum(['shell', 'read', 'edit', 'fetch', 'mcp', 'other', 'any']);
export type RuleTool = z.infer<typeof RuleTool>;

/** Where a rule holds: shipped with Nexus, everywhere, in one workspace, or for one session's life. */
export const RuleScope = z.enum(['default', 'global', 'workspace', 'session']);
export type RuleScope = z.infer<typeof RuleScope>;

export const RULE_PATTERN_HELP =
  'shell: a command prefix ("git status"), a glob ("npm run test*"), "inside:<prefix>" (every path it names is in ' +
  'the worktree) or "outside:<prefix>" (one is not); read/edit: "inside", "outside" or a path glob; fetch: a host ' +
  'glob ("*.example.com"); mcp/other: a tool name glob; any tool: "re:<regex>" or "*".';

export const Rule = z.object({
  id: z.string(),
  scope: RuleScope,
  workspaceId: z.string().nullable(),
  sessionId: z.string().nullable(),
  action: RuleAction,
  tool: RuleTool,
  pattern: z.string(),
  /** Why the rule exists, in the operator's words (defaults: the risk it asks about). */
  note: z.string().nullable(),
  /** default: shipped; operator: written in Settings, over MCP or the CLI; grant: from a permission card. */
  source: z.enum(['default', 'operator', 'grant']),
  createdAt: z.string().nullable(),
  /** A grant "for 1 h" ends then; null: until revoked. */
  expiresAt: z.string().nullable(),
  /** How many calls it decided since core started. */
  decided: z.number().int().nonnegative(),
});
export type Rule = z.infer<typeof Rule>;

/** One automatic decision: the call, what the rules said and which rule said it. */
export const AutoDecision = z.object({
  at: z.string(),
  sessionId: z.string(),
  workspaceId: z.string(),
  toolName: z.string(),
  /** The call in one line (the command, the path, the host), redacted. */
  summary: z.string(),
  decision: z.enum(['allow', 'deny']),
  ruleId: z.string(),
  /** "allow shell npm test (default)": the rule as the operator reads it. */
  rule: z.string(),
});
export type AutoDecision = z.infer<typeof AutoDecision>;

export const RuleInput = z
  .object({
    scope: z.enum(['global', 'workspace', 'session']).describe('global, one workspace, or one session'),
    workspace: z.string().min(1).max(100).optional().describe('The workspace (name or id) of a workspace rule'),
    sessionId: z.string().min(1).max(100).optional().describe('The session of a session rule'),
    action: RuleAction.describe('allow, ask or deny'),
    tool: RuleTool.describe('shell, read, edit, fetch, mcp, other or any'),
    pattern: z.string().trim().min(1).max(500).describe(RULE_PATTERN_HELP),
    note: z.string().max(500).optional(),
    expiresInMinutes: z
      .number()
      .int()
      .min(1)
      .max(60 * 24 * 365)
      .optional()
      .describe('The rule ends after this long (absent: until removed)'),
  })
  .strict();
export type RuleInput = z.infer<typeof RuleInput>;

/** The grants a permission card offers beside "Allow once" (which is permissions.decide). */
export const RuleGrant = z.enum(['session', 'workspace_hour', 'workspace']);
export type RuleGrant = z.infer<typeof RuleGrant>;

/** The narrowest rule that matches a pending request, as the card shows it before it is saved. */
export const RuleDraft = z.object({ tool: RuleTool, pattern: z.string(), text: z.string() });

export const ruleOperations = {
  'rules.list': operation({
    summary: 'The approval rules in force: the shipped defaults, global ones, and those of a workspace or session.',
    access: 'read',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z
      .object({
        workspace: z.string().max(100).optional().describe('Also the rules of this workspace (name or id)'),
        sessionId: z.string().max(100).optional().describe("Also this session's own grants"),
        every: z.boolean().optional().describe('Every rule of every workspace and session (what Settings lists)'),
      })
      .strict(),
    output: z.object({ rules: z.array(Rule) }),
  }),
  'rules.set': operation({
    summary: 'Adds an approval rule (operator only: no MCP token or session may widen its own permissions).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: RuleInput,
    output: z.object({ rule: Rule }),
  }),
  'rules.remove': operation({
    summary: 'Revokes an approval rule (the shipped defaults cannot be removed).',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ id: z.string().min(1).max(100) }).strict(),
    output: z.object({ removed: z.boolean() }),
  }),
  'rules.draft': operation({
    summary: 'The narrowest rule a grant from this pending request would save, or why it cannot have one.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ requestId: z.string().min(1).max(100) }).strict(),
    output: z.object({ draft: RuleDraft.nullable(), reason: z.string().nullable() }),
  }),
  'rules.grant': operation({
    summary: 'Allows a pending request and saves the narrowest rule for the rest of the session or the workspace.',
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ requestId: z.string().min(1).max(100), grant: RuleGrant }).strict(),
    output: z.object({ rule: Rule }),
  }),
  'rules.decisions': operation({
    summary: "A session's automatic decisions (newest first) and how many asks the rules saved it.",
    access: 'operator',
    delegated: 'refused',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ sessionId: z.string().min(1).max(100) }).strict(),
    output: z.object({ saved: z.number().int().nonnegative(), decisions: z.array(AutoDecision) }),
  }),
};

export const ruleEvents = {
  /** A rule was added, removed or ran out: re-read the list. */
  'rules.changed': z.object({}),
  /** The rules decided a call without the operator. */
  'rules.decided': AutoDecision,
};
