import { DELEGATED_MCP_SERVER } from '../../../../shared/contract/delegation';
import { NexusError } from '../../../../shared/errors';
import { GATEWAY_KEY_HELPER } from './credential';
import { WORKER_NODE } from '../../docker';

/**
 * The container user's first-run state, so the real CLI starts unattended. Each dialog that would
 * block an unattended start, and what passes it (measured on 2.1.332; docs/sessions.md lists the tests):
 *  - onboarding / theme picker      → ~/.claude.json `hasCompletedOnboarding: true`
 *  - "Do you trust this folder?"    → ~/.claude.json `projects[<repo root>].hasTrustDialogAccepted: true`;
 *    the repository root covers every git worktree of it (a plain parent folder does not)
 *  - "use this API key?"            → not shown: the key comes from `apiKeyHelper`, never ANTHROPIC_API_KEY
 *  - bypass-mode warning            → settings `skipDangerousModePermissionPrompt: true` (bypass workspaces)
 *  - auto-mode opt-in               → settings `skipAutoPermissionPrompt: true` (sessions in auto mode)
 *  - MCP tool permission dialogs    → settings `permissions.allow` holds `mcp__nexus` (Core authorises platform tools)
 *    and `mcp__nexus-delegated` (Nexus's own server, present only when the operator gave the workspace a credential)
 * Auto-update is off both ways the CLI knows (~/.claude.json `autoUpdates: false`, settings
 * `env.DISABLE_AUTOUPDATER`). Everything is merged into what is there: keys the operator added stay.
 * One `node -e` in the container does it all, with the payload on stdin.
 */

export interface FirstRunOptions {
  /** The repository root inside the container; trusting it covers every worktree. */
  repoDir: string;
  /** The session runs in bypassPermissions: its warning is accepted up front. */
  bypass?: boolean;
  /** The session runs in auto mode: its opt-in dialog is accepted up front. */
  autoMode?: boolean;
  /**
   * Nexus's hook entries by event (see sessions/hooks/hook-relay.ts). Entries whose command or URL contains
   * `marker` are replaced, the operator's are kept.
   */
  hooks?: { entries: Record<string, unknown[]>; marker: string };
}

export interface FirstRunPayload {
  repoDir: string;
  bypass: boolean;
  autoMode: boolean;
  hooks: { entries: Record<string, unknown[]>; marker: string } | null;
  apiKeyHelper: string;
  allow: string[];
}

export const firstRunPayload = (o: FirstRunOptions): FirstRunPayload => ({
  repoDir: o.repoDir,
  bypass: o.bypass ?? false,
  autoMode: o.autoMode ?? false,
  hooks: o.hooks ?? null,
  apiKeyHelper: GATEWAY_KEY_HELPER,
  allow: ['mcp__nexus', `mcp__${DELEGATED_MCP_SERVER}`],
});

/**
 * Runs in the container as the worker user (node is in every worker). The `apiKeyHelper` is always Nexus's: it
 * prints the session's gateway credential (credential.ts), the only sign-in a Nexus session has.
 */
export const FIRST_RUN_SCRIPT = `
const fs = require('fs'); const path = require('path'); const os = require('os');
const p = JSON.parse(fs.readFileSync(0, 'utf8'));
const read = (f) => { try { const v = JSON.parse(fs.readFileSync(f, 'utf8')); return v && typeof v === 'object' && !Array.isArray(v) ? v : {}; } catch { return {}; } };
const write = (f, v) => { fs.mkdirSync(path.dirname(f), { recursive: true, mode: 0o700 }); const t = f + '.nexus-tmp'; fs.writeFileSync(t, JSON.stringify(v, null, 2) + '\\n', { mode: 0o600 }); fs.renameSync(t, f); };
const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
const home = os.homedir();
const gf = path.join(home, '.claude.json');
const g = read(gf);
g.hasCompletedOnboarding = true;
g.autoUpdates = false;
g.projects = obj(g.projects);
g.projects[p.repoDir] = { ...obj(g.projects[p.repoDir]), hasTrustDialogAccepted: true };
write(gf, g);
const sf = path.join(home, '.claude', 'settings.json');
const s = read(sf);
s.env = { ...obj(s.env), DISABLE_AUTOUPDATER: '1' };
s.permissions = obj(s.permissions);
const allow = Array.isArray(s.permissions.allow) ? s.permissions.allow : [];
for (const a of p.allow) if (!allow.includes(a)) allow.push(a);
s.permissions.allow = allow;
if (p.bypass) s.skipDangerousModePermissionPrompt = true;
if (p.autoMode) s.skipAutoPermissionPrompt = true;
s.apiKeyHelper = p.apiKeyHelper;
if (p.hooks) {
  s.hooks = obj(s.hooks);
  for (const [event, entries] of Object.entries(p.hooks.entries)) {
    const kept = (Array.isArray(s.hooks[event]) ? s.hooks[event] : []).filter((m) => !((m && m.hooks) || []).some((h) => String((h && (h.command || h.url)) || '').includes(p.hooks.marker)));
    s.hooks[event] = [...kept, ...entries];
  }
}
write(sf, s);
`;

/** Something that runs a command in the workspace container as the worker user. */
export type RunInContainer = (
  cmd: string[],
  opts: { stdin: string },
) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

/** Seeds (idempotently) the first-run state; throws a typed error when the container refuses. */
export async function seedFirstRun(run: RunInContainer, options: FirstRunOptions): Promise<void> {
  const r = await run([WORKER_NODE, '-e', FIRST_RUN_SCRIPT], { stdin: JSON.stringify(firstRunPayload(options)) });
  if (r.exitCode !== 0)
    throw new NexusError(
      'internal',
      `Preparing the agent's first-run state failed: ${(r.stderr || r.stdout).trim().slice(0, 400)}`,
    );
}
