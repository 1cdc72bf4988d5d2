import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NexusError } from '../../../shared/errors';
import type { AgentCapabilities, AgentKind } from '../../../shared/contract/agent-kind';
import type { AuditEntry } from '../audit';
import type { Redactor } from '../redact';
import type { AskedCall, RulesAnswer } from './rules/rules-service';

/**
 * Permission requests the agent's PermissionRequest hook asks core to decide (nexus-hook sends a
 * NATS request on nexus.permissions.<workspaceId> and waits). Core holds each one in memory for
 * `waitMs`: the operator decides (allow | deny | deny with a note) and core replies; when nobody
 * decides in time core replies empty: what the agent does then is its kind's (`unanswered`): a dialog of its
 * own stays in the terminal, or a gate that fails closed denies the call (under full access nothing would mean run).
 * Only the operator's decide() answers: the hook user cannot publish on its reply subject. The relay asks again
 * every 10 s while it waits (same `askId`): the held request then answers on the newest reply subject, and a core
 * started after the one that held it was SIGKILLed holds it anew, so a question outlives a core crash.
 */

/** What nexus-hook sends (the workspace comes from the subject, never from here). */
export const PermissionAsk = z.object({
  sessionId: z.string().min(1).max(100),
  workspaceId: z.string().min(1).max(100),
  at: z.iso.datetime(),
  toolName: z.string().min(1).max(200),
  toolInput: z.unknown(),
  /** The relay's id for this question: asked again while it waits, it is the same request (event.ts permissionAsk). */
  askId: z
    .string()
    .regex(/^[a-f0-9]{8,64}$/)
    .optional(),
});

export interface PendingPermission {
  id: string;
  sessionId: string;
  workspaceId: string;
  toolName: string;
  /** The asking session's agent kind. */
  agent: AgentKind;
  /** What happens when nobody decides (the kind's driver says; see above). */
  unanswered: AgentCapabilities['unansweredPermission'];
  /** The tool input, redacted, as the operator sees it. */
  toolInput: unknown;
  askedAt: string;
  expiresAt: string;
  /** The approval rule that insists on asking ("always ask"), null when no rule decided it. */
  askedBy?: string | null;
}

/** The approval rules' say on a request before the operator sees it (rules/rules-service.ts). */
export interface PermissionRules {
  decide(asked: AskedCall): RulesAnswer;
}

export type PermissionDecision = { behavior: 'allow' } | { behavior: 'deny'; message?: string };

interface Held {
  request: PendingPermission;
  /** The call as asked (raw input, never shown): a grant's narrowest rule is drawn from it. */
  asked: AskedCall;
  askId?: string;
  respond: (data: string) => void;
  timer: NodeJS.Timeout;
}

export interface PermissionRequestsDeps {
  waitMs: number;
  redactor: Pick<Redactor, 'value' | 'text'>;
  audit: (e: AuditEntry) => void;
  /** Whether the session belongs to the workspace the request came from. */
  sessionInWorkspace: (sessionId: string, workspaceId: string) => boolean;
  /** The asking session's kind and what its agent does with a request nobody answers. */
  agentOf: (sessionId: string) => { kind: AgentKind; unanswered: AgentCapabilities['unansweredPermission'] };
  changed: (pending: PendingPermission[]) => void;
  /** The approval rules; absent: every request goes to the operator. */
  rules?: PermissionRules;
  /** The session's worktree in its container (relative paths of a call are in it). */
  worktreeOf?: (sessionId: string) => string | null;
}

const MAX_INPUT_CHARS = 8000;

export class PermissionRequests {
  private readonly held = new Map<string, Held>();
  constructor(private readonly deps: PermissionRequestsDeps) {}

  /** One NATS request from a hook; `workspaceId` is the subject's token. Returns the pending request, or null if refused. */
  ask(workspaceId: string, data: Uint8Array, respond: (data: string) => void): PendingPermission | null {
    let parsed: z.infer<typeof PermissionAsk>;
    try {
      parsed = PermissionAsk.parse(JSON.parse(new TextDecoder().decode(data)));
    } catch {
      respond('');
      return null;
    }
    if (parsed.workspaceId !== workspaceId || !this.deps.sessionInWorkspace(parsed.sessionId, workspaceId)) {
      respond('');
      return null;
    }
    // The same question asked again (the relay asks in slices): the asker's newest reply subject answers it.
    const again = parsed.askId ? this.heldAsk(parsed.askId, parsed.sessionId, workspaceId) : undefined;
    if (again) {
      again.respond = respond;
      return again.request;
    }
    const asked: AskedCall = {
      sessionId: parsed.sessionId,
      workspaceId,
      toolName: parsed.toolName,
      toolInput: parsed.toolInput ?? null,
      worktree: this.deps.worktreeOf?.(parsed.sessionId) ?? '',
    };
    // The operator's rules first: an allow or deny by a rule answers at once (audited there), never held. Without
    // the session's worktree no path can be read, so nothing is decided for it.
    const answer: RulesAnswer = (asked.worktree ? this.deps.rules?.decide(asked) : undefined) ?? {
      action: 'ask',
      askedBy: null,
    };
    if (answer.action === 'allow') {
      respond(JSON.stringify({ behavior: 'allow' }));
      return null;
    }
    if (answer.action === 'deny') {
      respond(
        JSON.stringify({ behavior: 'deny', message: `Denied by a rule of the operator in Nexus: ${answer.rule}` }),
      );
      return null;
    }
    const now = Date.now();
    // A question first asked of a core that died is held only as long as its asker still waits.
    const askedAt = Date.parse(parsed.at);
    const expiresAt = parsed.askId
      ? Math.min(now + this.deps.waitMs, Math.max(now + 1000, askedAt + this.deps.waitMs))
      : now + this.deps.waitMs;
    let toolInput = this.deps.redactor.value(parsed.toolInput ?? null);
    const shown = JSON.stringify(toolInput) ?? 'null';
    if (shown.length > MAX_INPUT_CHARS) toolInput = `${shown.slice(0, MAX_INPUT_CHARS)}…`;
    const agent = this.deps.agentOf(parsed.sessionId);
    const request: PendingPermission = {
      id: randomUUID(),
      sessionId: parsed.sessionId,
      workspaceId,
      toolName: parsed.toolName,
      agent: agent.kind,
      unanswered: agent.unanswered,
      toolInput,
      askedAt: new Date(now).toISOString(),
      expiresAt: new Date(expiresAt).toISOString(),
      askedBy: answer.action === 'ask' ? answer.askedBy : null,
    };
    const timer = setTimeout(() => this.expire(request.id), expiresAt - now);
    timer.unref();
    this.held.set(request.id, { request, asked, respond, timer, ...(parsed.askId ? { askId: parsed.askId } : {}) });
    this.deps.changed(this.list());
    return request;
  }

  private heldAsk(askId: string, sessionId: string, workspaceId: string): Held | undefined {
    for (const h of this.held.values())
      if (h.askId === askId && h.request.sessionId === sessionId && h.request.workspaceId === workspaceId) return h;
    return undefined;
  }

  /** The call a pending request asks about, as asked (for a grant's rule); throws not_found. */
  askedOf(id: string): AskedCall {
    const h = this.held.get(id);
    if (!h) throw new NexusError('not_found', 'No pending permission request with that id (decided or expired).');
    return h.asked;
  }

  list(sessionId?: string): PendingPermission[] {
    return [...this.held.values()].map((h) => h.request).filter((r) => !sessionId || r.sessionId === sessionId);
  }

  /** The operator's answer; audited with who decided, the session, the tool and the outcome. */
  decide(id: string, decision: PermissionDecision, actor: string, transport: string): PendingPermission {
    const h = this.held.get(id);
    if (!h) throw new NexusError('not_found', 'No pending permission request with that id (decided or expired).');
    this.held.delete(id);
    clearTimeout(h.timer);
    const note = decision.behavior === 'deny' && decision.message ? decision.message.slice(0, 2000) : undefined;
    h.respond(JSON.stringify(note ? { behavior: 'deny', message: note } : { behavior: decision.behavior }));
    this.deps.audit({
      actor,
      transport,
      operation: 'permissions.decide',
      outcome: decision.behavior === 'allow' ? 'allowed' : note ? 'denied_with_note' : 'denied',
      durationMs: Date.now() - Date.parse(h.request.askedAt),
      detail: this.deps.redactor.text(`session ${h.request.sessionId}, tool ${h.request.toolName}`),
    });
    this.deps.changed(this.list());
    return h.request;
  }

  private expire(id: string): void {
    const h = this.held.get(id);
    if (!h) return;
    this.held.delete(id);
    h.respond('');
    this.deps.changed(this.list());
  }

  /** A session's turn was cancelled: its waiting requests are withdrawn (answered as nobody deciding). */
  withdraw(sessionId: string): void {
    for (const [id, h] of [...this.held]) if (h.request.sessionId === sessionId) this.expire(id);
  }

  /** On shutdown: every waiting hook steps aside. */
  dispose(): void {
    for (const id of [...this.held.keys()]) this.expire(id);
  }
}
