/** The seed's mount. The host routes it exactly (case-sensitive, no trailing slash, no encoding). */
export const MCP_PATH = '/api/mcp';
