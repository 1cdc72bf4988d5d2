/**
 * The MCP tools a read-class caller is shown, sorted: what a read token (and every class above it,
 * since the classes nest) lists. Written out here, not read from the tool table, so that a tool
 * moving class is a test failure someone has to look at.
 */
export const READ_CLASS_TOOLS = [
  'get_nexus_info',
  'get_session',
  'get_session_diff',
  'get_workspace',
  'list_rules',
  'list_sessions',
  'list_workspaces',
] as const;
