/**
 * The agent's hook command inside a worker (declared in the container user's ~/.claude/settings.json,
 * user-level because project hooks go missing in worktrees):
 *   node nexus-hook.cjs <stateDir> <natsConfigFile>      (hook JSON on stdin)
 * It names the session from NEXUS_SESSION_ID in the window's environment (not our session: exit),
 * on SessionStart records the inbox address (CLAUDE_CODE_MESSAGING_SOCKET/TOKEN are in the hook's
 * environment) for nexus-inbox-send, and publishes a trimmed event on nexus.hooks.<workspaceId>
 * (Stop keeps last_assistant_message: the run's summary).
 * It prints nothing (some events add hook stdout to the agent's context) and always exits 0, fast.
 * On PermissionRequest it also asks core (a NATS request on nexus.permissions.<workspaceId>, reply on
 * its own nexus.permission-replies.<workspaceId>.<random>) and waits: an allow/deny answer is printed
 * as the hook's decision; no answer (or an empty one) prints nothing, so the dialog stays in the pane.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { publishOnce, requestOnce, type NatsTarget } from './nats-publish';

/** How long a PermissionRequest waits for the operator when the credentials file does not say. */
const DEFAULT_PERMISSION_WAIT_MS = 120_000;

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
  'last_assistant_message',
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
  if (input.hook_event_name === 'PermissionRequest') await askOperator(target, sessionId, workspaceId, input);
}

async function askOperator(
  target: NatsTarget & { permissionWaitMs?: number },
  sessionId: string,
  workspaceId: string,
  input: Record<string, unknown>,
): Promise<void> {
  const ask = JSON.stringify({
    sessionId,
    workspaceId,
    at: new Date().toISOString(),
    toolName: typeof input.tool_name === 'string' ? input.tool_name.slice(0, 200) : 'unknown',
    toolInput: input.tool_input ?? null,
  });
  const replyTo = `nexus.permission-replies.${workspaceId}.${randomBytes(12).toString('hex')}`;
  const wait = (target.permissionWaitMs ?? DEFAULT_PERMISSION_WAIT_MS) + 2000;
  const answer = await requestOnce(target, `nexus.permissions.${workspaceId}`, replyTo, ask, wait);
  if (!answer) return;
  const d = JSON.parse(answer) as { behavior?: unknown; message?: unknown };
  if (d.behavior !== 'allow' && d.behavior !== 'deny') return;
  const decision =
    d.behavior === 'deny' && typeof d.message === 'string' && d.message
      ? { behavior: 'deny', message: d.message.slice(0, 2000) }
      : { behavior: d.behavior };
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } }));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`nexus-hook: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(0);
  },
);
