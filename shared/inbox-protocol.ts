/**
 * The agent's inbox socket protocol, in one place (docs/sessions.md,
 * "Messages"). Imported by core and bundled into the worker-side helper (resources/worker/nexus-inbox-send),
 * so a CLI change is a change here only. No Node imports: it is plain data in, strings out.
 *
 * Protocol, as core uses it:
 *  1. Connect to the session's socket (CLAUDE_CODE_MESSAGING_SOCKET) only when the whole payload is
 *     ready: the CLI closes a connection that sends no complete line within 30 s.
 *  2. Line 1: {"type":"auth","token":"<CLAUDE_CODE_MESSAGING_TOKEN>"} — enforced only on Windows, always sent.
 *  3. Line 2: {"type":"user","message":{"role":"user","content":"<text>"},"priority":"next",
 *     "msg_id":…,"session_id":…,"from":"uds:<reply socket>"}. content is a non-empty string;
 *     session_id, when present, must equal the target's id or the frame is dropped.
 *  4. Frames are JSON, one per line; a line over 1,048,576 characters drops the connection.
 *  5. The CLI never answers on this connection: send, then close. Delivery status arrives later on a
 *     new connection to the `from` address: {"type":"control","action":"peer_message_status","status":…,
 *     "orig_msg_id":…} with held | denied | expired | delivered | refused | dropped — only when that
 *     address is a `.sock` in the agent's own socket directory.
 */

export const MAX_LINE_CHARS = 1_048_576;
export const MAX_FROM_CHARS = 300;
export const Priorities = ['now', 'next', 'later'] as const;
export type Priority = (typeof Priorities)[number];

export const DeliveryStatuses = ['held', 'denied', 'expired', 'delivered', 'refused', 'dropped'] as const;
export type DeliveryStatus = (typeof DeliveryStatuses)[number];

export interface UserFrameInput {
  content: string;
  priority?: Priority;
  msgId?: string;
  sessionId?: string;
  /** A reply socket path; sent as `uds:<path>`. */
  replyTo?: string;
}

export class InboxFrameError extends Error {}

export function encodeAuthFrame(token: string): string {
  return `${JSON.stringify({ type: 'auth', token })}\n`;
}

export function encodeUserFrame(input: UserFrameInput): string {
  if (typeof input.content !== 'string' || input.content.length === 0)
    throw new InboxFrameError('message content must be a non-empty string');
  const frame: Record<string, unknown> = {
    type: 'user',
    message: { role: 'user', content: input.content },
    priority: input.priority ?? 'next',
  };
  if (input.msgId) frame.msg_id = input.msgId;
  if (input.sessionId) frame.session_id = input.sessionId;
  if (input.replyTo !== undefined) {
    const from = `uds:${input.replyTo}`;
    if (from.length > MAX_FROM_CHARS || !/^[A-Za-z0-9%:_/.-]+$/.test(from))
      throw new InboxFrameError('reply address must be at most 300 characters of [A-Za-z0-9%:_/.-]');
    frame.from = from;
  }
  const line = JSON.stringify(frame);
  if (line.length > MAX_LINE_CHARS)
    throw new InboxFrameError(
      `message too long: the frame is ${line.length} characters, the inbox accepts ${MAX_LINE_CHARS}`,
    );
  return `${line}\n`;
}

/**
 * The status in a peer_message_status frame, or null for anything else. The CLI names the message it
 * answers `orig_msg_id` (2.1.332; `msg_id` accepted too) and reports a refusal as `expired` with
 * `status_detail: "refused"`.
 */
export function parseStatusFrame(line: string): { status: DeliveryStatus; msgId: string | null } | null {
  try {
    const f = JSON.parse(line) as Record<string, unknown>;
    if (f.type !== 'control' || f.action !== 'peer_message_status') return null;
    const named = f.status === 'expired' && f.status_detail === 'refused' ? 'refused' : f.status;
    const status = DeliveryStatuses.find((s) => s === named);
    const id = typeof f.orig_msg_id === 'string' ? f.orig_msg_id : typeof f.msg_id === 'string' ? f.msg_id : null;
    return status ? { status, msgId: id } : null;
  } catch {
    return null;
  }
}

/**
 * What the worker-side helper prints (one JSON line on stdout) after a send. `sent` means the frames
 * were written and the socket closed cleanly but no status came back within the wait.
 */
export const HelperOutcomes = [
  'delivered',
  'sent',
  'held',
  'denied',
  'expired',
  'refused',
  'dropped',
  'socket_missing',
  'auth_refused',
  'timeout',
  'bad_input',
] as const;
export type HelperOutcome = (typeof HelperOutcomes)[number];
export interface HelperReport {
  outcome: HelperOutcome;
  detail?: string;
}

/** Per-session file the SessionStart hook writes inside the container, read by the helper. */
export interface InboxAddress {
  socket: string;
  token: string;
  /** The agent's own conversation id (hook `session_id`), used as the frame's session_id. */
  agentSessionId?: string;
}
export const inboxAddressFile = (stateDir: string, sessionId: string): string => `${stateDir}/${sessionId}/inbox.json`;
