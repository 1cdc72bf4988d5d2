/**
 * The agent's hook command inside a worker (declared in the container user's ~/.claude/settings.json,
 * user-level because project hooks go missing in worktrees):
 *   node nexus-hook.cjs <stateDir> <natsConfigFile>      (hook JSON on stdin)
 * It names the session from NEXUS_SESSION_ID in the window's environment (not our session: exit),
 * on SessionStart records the inbox address (CLAUDE_CODE_MESSAGING_SOCKET/TOKEN are in the hook's
 * environment) for nexus-inbox-send, and publishes a trimmed event on nexus.hooks.<workspaceId>.
 * It prints nothing (some events add hook stdout to the agent's context) and always exits 0, fast.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { publishOnce, type NatsTarget } from './nats-publish';

const KEEP = [
  'hook_event_name',
  'session_id',
  'notification_type',
  'message',
  'title',
  'source',
  'reason',
  'permission_mode',
  'stop_hook_active',
  'tool_name',
];

async function readStdin(limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += (c as Buffer).length;
    if (size <= limit) chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const [stateDir, natsFile] = process.argv.slice(2);
  const sessionId = process.env.NEXUS_SESSION_ID;
  const workspaceId = process.env.NEXUS_WORKSPACE_ID;
  if (!stateDir || !natsFile || !sessionId || !workspaceId || !/^[A-Za-z0-9_-]+$/.test(workspaceId)) return;
  const input = JSON.parse(await readStdin(4 * 1024 * 1024)) as Record<string, unknown>;
  const event: Record<string, unknown> = {};
  for (const k of KEEP) {
    const v = input[k];
    if (v !== undefined) event[k] = typeof v === 'string' ? v.slice(0, 2000) : v;
  }
  if (input.hook_event_name === 'SessionStart' && process.env.CLAUDE_CODE_MESSAGING_SOCKET) {
    const dir = `${stateDir}/${sessionId}`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = `${dir}/inbox.json`;
    const address = {
      socket: process.env.CLAUDE_CODE_MESSAGING_SOCKET,
      token: process.env.CLAUDE_CODE_MESSAGING_TOKEN ?? '',
      agentSessionId: input.session_id,
    };
    writeFileSync(file, JSON.stringify(address), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  const target = JSON.parse(readFileSync(natsFile, 'utf8')) as NatsTarget;
  const payload = JSON.stringify({ sessionId, workspaceId, at: new Date().toISOString(), event });
  await publishOnce(target, `nexus.hooks.${workspaceId}`, payload, 3000);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`nexus-hook: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(0);
  },
);
