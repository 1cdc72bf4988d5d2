import type { ToolDefinition } from '../tool';
import { createSession } from './create-session';
import { createWorkspace } from './create-workspace';
import { deleteSession } from './delete-session';
import { deleteWorkspace } from './delete-workspace';
import { getNexusInfo } from './get-nexus-info';
import { getSession } from './get-session';
import { getSessionDiff } from './get-session-diff';
import { getWorkspace } from './get-workspace';
import { listRules } from './list-rules';
import { listSessions } from './list-sessions';
import { linkTaskToIssue } from './link-task-to-issue';
import { listWorkspaces } from './list-workspaces';
import { pushSession } from './push-session';
import { sendMessage } from './send-message';
import { setRule } from './set-rule';
import { setWorkspaceTracker } from './set-workspace-tracker';
import { startWorkspace } from './start-workspace';
import { stopWorkspace } from './stop-workspace';

/** Every tool Nexus publishes over MCP, one file each. */
export const tools = [
  listWorkspaces,
  getWorkspace,
  createWorkspace,
  startWorkspace,
  stopWorkspace,
  deleteWorkspace,
  listSessions,
  getSession,
  getSessionDiff,
  pushSession,
  createSession,
  deleteSession,
  sendMessage,
  setWorkspaceTracker,
  linkTaskToIssue,
  listRules,
  setRule,
  getNexusInfo,
] as unknown as readonly ToolDefinition[];

export const toolsByName: ReadonlyMap<string, ToolDefinition> = new Map(tools.map((t) => [t.name, t]));
