import { z } from 'zod';
import { McpServerSpec } from '../../../../shared/contract/platform';

/** The servers as typed (a JSON list), checked against the contract. */
export function parseMcpServers(text: string): { servers: McpServerSpec[] } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text.trim() || '[]');
  } catch {
    return { error: 'Not valid JSON.' };
  }
  const r = z.array(McpServerSpec).max(20).safeParse(raw);
  if (r.success) return { servers: r.data };
  const i = r.error.issues[0];
  return { error: `${i?.path.join('.') || 'servers'}: ${i?.message ?? 'invalid'}` };
}

const EXAMPLE = `[{ "name": "filesystem", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/workspace"],
   "env": { "API_TOKEN": { "vault": "my-vault-secret" } }, "tools": [], "disabled": false }]`;

/** External stdio MCP servers of the agent (seed `mcp_servers`), as JSON; env values may name vault secrets. */
export function McpServersField({
  value,
  onChange,
  problem,
}: {
  value: string;
  onChange: (v: string) => void;
  problem: string | null;
}) {
  return (
    <label style={{ display: 'block' }}>
      MCP servers (JSON; each gets tools named mcp__&lt;name&gt;__&lt;tool&gt;; a server that fails to start never stops
      the session)
      <textarea
        value={value}
        onChange={(e) => onChange(e.target.value)}
        rows={6}
        style={{ width: '100%', fontFamily: 'monospace' }}
        placeholder={EXAMPLE}
        aria-label="MCP servers"
        aria-invalid={problem ? true : undefined}
        aria-describedby="mcp-servers-note"
      />
      {problem ? (
        <small id="mcp-servers-note" className="banner bad">
          {problem}
        </small>
      ) : (
        <small id="mcp-servers-note">Example: {EXAMPLE}</small>
      )}
    </label>
  );
}
