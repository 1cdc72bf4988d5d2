/**
 * The Node hook command inside a worker: every hook of a kind whose hooks are per-session commands (its
 * permission gate, NEXUS_HOOK_GATE, asks the operator) and of a workspace without NATS, and the fallback of the shell hook (nexus-hook.sh, see
 * main/core/sessions/hooks/hook-command.ts) that carries a Claude session's SessionStart and StopFailure
 * (the events the CLI's HTTP hooks do not cover) when the relay does not answer:
 *   node nexus-hook.cjs <stateDir> <natsConfigFile> <relayPort> <relayStartScript> [--inbox-only]   (hook JSON on stdin)
 * It names the session from NEXUS_SESSION_ID in the window's environment (not our session: exit),
 * on SessionStart records the inbox address (CLAUDE_CODE_MESSAGING_SOCKET/TOKEN are in the hook's
 * environment) for nexus-inbox-send, and hands the event to the workspace's hook relay on
 * 127.0.0.1:<relayPort>, so it keeps its place among the HTTP hooks' events. When the relay does not
 * answer, it publishes on nexus.hooks.<workspaceId> itself (and on PermissionRequest asks core and
 * waits for the answer), and starts the relay again. It prints nothing but a permission decision
 * (some events add hook stdout to the agent's context) and always exits 0.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { decisionOutput, gateOutput, hookMessage, isToolGate, permissionAsk } from './event';
import { inboxAddress, writeInboxAddress } from './inbox-address';
import { publishOnce, requestOnce, type NatsTarget } from './nats-publish';

/** The fifth argument when the event already went out and only the inbox address is left to write. */
const INBOX_ONLY = '--inbox-only';

/** How long a PermissionRequest waits for the operator when the credentials file does not say. */
const DEFAULT_PERMISSION_WAIT_MS = 120_000;

async function readStdin(limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += (c as Buffer).length;
    if (size <= limit) chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Posts the event to the relay: its answer body, or null when the relay is not there. */
function postToRelay(port: number, sessionId: string, body: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/nexus-hook',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-nexus-session': sessionId },
        timeout: timeoutMs,
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (out += d));
        res.on('end', () => resolve(res.statusCode === 200 || res.statusCode === 204 ? out : null));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

/** Set once a permission gate is open: whatever fails after that must deny, never let the call run. */
let failClosed = false;

async function main(): Promise<void> {
  const [stateDir, natsFile, relayPort, relayStart, mode] = process.argv.slice(2);
  const sessionId = process.env.NEXUS_SESSION_ID;
  const workspaceId = process.env.NEXUS_WORKSPACE_ID;
  if (!stateDir || !natsFile || !sessionId || !workspaceId || !/^[A-Za-z0-9_-]+$/.test(workspaceId)) return;
  let raw = await readStdin(4 * 1024 * 1024);
  const input = JSON.parse(raw) as Record<string, unknown>;
  // A gated kind's tool call waits here for the operator: it goes out as a PermissionRequest (see isToolGate).
  const gate = isToolGate(input, process.env.NEXUS_HOOK_GATE);
  if (gate) {
    failClosed = true;
    input.hook_event_name = 'PermissionRequest';
    raw = JSON.stringify(input);
  }
  const out = (s: string): boolean => process.stdout.write(gate ? gateOutput(s) : s);
  if (input.hook_event_name === 'SessionStart' && process.env.CLAUDE_CODE_MESSAGING_SOCKET) {
    const env = process.env;
    const address = inboxAddress(env.CLAUDE_CODE_MESSAGING_SOCKET, env.CLAUDE_CODE_MESSAGING_TOKEN, input.session_id);
    if (address) writeInboxAddress(stateDir, sessionId, address);
  }
  // The shell hook (nexus-hook.sh) handed the event to a relay that did not write the address (one
  // started before this version): only the address is left to do.
  if (mode === INBOX_ONLY) return;
  const target = JSON.parse(readFileSync(natsFile, 'utf8')) as NatsTarget & { permissionWaitMs?: number };
  const wait = (target.permissionWaitMs ?? DEFAULT_PERMISSION_WAIT_MS) + 2000;
  const isAsk = input.hook_event_name === 'PermissionRequest';
  if (relayPort) {
    const answer = await postToRelay(Number(relayPort), sessionId, raw, isAsk ? wait + 1000 : 3000);
    if (answer !== null) return void out(answer);
    if (relayStart) spawn('sh', [relayStart], { detached: true, stdio: 'ignore' }).unref();
  }
  await publishOnce(target, `nexus.hooks.${workspaceId}`, hookMessage(sessionId, workspaceId, input), 3000);
  if (!isAsk) return;
  const replyTo = `nexus.permission-replies.${workspaceId}.${randomBytes(12).toString('hex')}`;
  const ask = permissionAsk(sessionId, workspaceId, input);
  out(decisionOutput(await requestOnce(target, `nexus.permissions.${workspaceId}`, replyTo, ask, wait)));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`nexus-hook: ${e instanceof Error ? e.message : String(e)}\n`);
    if (failClosed) process.stdout.write(gateOutput(''));
    process.exit(0);
  },
);
