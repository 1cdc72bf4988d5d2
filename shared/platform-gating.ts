/**
 * Gating of platform tools (seed "Gating"): a tool is offered to the model, and accepted on call,
 * only when its check passes (availability + permission) and it is in the agent's allow-list
 * (empty = every gated-available tool). Core decides; nexus-mcp asks for the run's catalogue.
 */
import { z } from 'zod';
import { toolNames, type ToolName } from './platform-tools';

/** What an agent record may grant. Reads (search, list, view) need no grant. */
export const AgentPermission = z.enum(['memory.write', 'skill.write', 'task.write', 'board.write']);
export type AgentPermission = z.infer<typeof AgentPermission>;
export const allPermissions: readonly AgentPermission[] = AgentPermission.options;

export const permissionLabels: Record<AgentPermission, string> = {
  'memory.write': 'Propose memories',
  'skill.write': 'Propose skills',
  'task.write': 'Create tasks (subtasks, delegations)',
  'board.write': 'Comment on the board',
};

/** Each tool's check: the grant it needs, and whether it needs a run with a task. */
export const toolChecks: Record<ToolName, { permission?: AgentPermission; needsTask?: boolean }> = {
  'memory.propose': { permission: 'memory.write' },
  'memory.search': {},
  'task.subtask': { permission: 'task.write', needsTask: true },
  'task.delegate': { permission: 'task.write' },
  'board.comment': { permission: 'board.write', needsTask: true },
  'skill.propose': { permission: 'skill.write' },
  'skill.list': {},
  'skill.view': {},
  'run.search': {},
};

/** What a check reads of the agent and its run. */
export interface GateSubject {
  tools: readonly string[];
  permissions: readonly string[];
  hasTask: boolean;
}

/** Why `tool` is not offered to this run, or null when it is. */
export function gateReason(tool: ToolName, s: GateSubject): string | null {
  if (s.tools.length > 0 && !s.tools.includes(tool)) return 'not in the allow-list';
  const check = toolChecks[tool];
  if (check.permission && !s.permissions.includes(check.permission))
    return `the agent lacks the "${check.permission}" permission`;
  if (check.needsTask && !s.hasTask) return 'the run has no task';
  return null;
}

/** The tools a run is offered, in catalogue order. */
export const offeredTools = (s: GateSubject): ToolName[] => toolNames.filter((t) => gateReason(t, s) === null);

/**
 * The reserved request nexus-mcp sends on tools.invoke.<runId> for its run's catalogue: reply
 * `{ result: { tools: [...] } }`. Core also publishes that body on `catalogSubjectFor(runId)` when
 * the agent record changes, so a running session's tool list follows its record.
 */
export const CATALOG_REQUEST = 'tools.catalog';
export const Catalog = z.object({ tools: z.array(z.string()) });
export type Catalog = z.infer<typeof Catalog>;
export const catalogSubjectFor = (runId: string): string => `_INBOX.${runId}.catalog`;
