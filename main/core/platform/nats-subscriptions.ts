import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { subjects } from '../../../shared/platform-tools';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import type { ToolRouter } from './tool-router';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export interface HookEvent {
  /** From the subject the event arrived on, never from its body. */
  workspaceId: string;
  event: unknown;
}

export type PermissionAskHandler = (workspaceId: string, data: Uint8Array, respond: (d: string) => void) => void;

/**
 * What core answers on NATS: platform tool requests (`tools.invoke.<runId>`, to the router), hook
 * events (`nexus.hooks.<workspaceId>`, to every hook handler) and permission asks
 * (`nexus.permissions.<workspaceId>`, to the one receiver). The caller's identity is the subject.
 */
export class NatsSubscriptions {
  private readonly subs: Subscription[] = [];
  private readonly hookHandlers = new Set<(e: HookEvent) => void>();
  private permissionAsk: PermissionAskHandler | null = null;
  private acpHandler: ((e: HookEvent) => void) | null = null;

  constructor(private readonly deps: { router: ToolRouter; log: Logger }) {}

  /** Subscribes on core's connection; resolves once the server has them. */
  async subscribe(nc: NatsConnection): Promise<void> {
    this.subs.push(
      nc.subscribe(subjects.toolsAll, {
        callback: (err, msg) => {
          if (err) return;
          this.onToolRequest(msg.subject, msg.data, (d) => msg.respond(d)).catch((e: unknown) =>
            this.deps.log.error('tool request failed', { error: e }),
          );
        },
      }),
    );
    this.subs.push(
      nc.subscribe(subjects.hooksAll, {
        callback: (err, msg) => {
          if (err) return;
          this.onHook(msg.subject, msg.data);
          // The relay's acknowledgement: it sends again what got no answer (nexus-hook-relay/main.ts).
          if (msg.reply) msg.respond();
        },
      }),
    );
    this.subs.push(
      nc.subscribe(subjects.permissionsAll, {
        callback: (err, msg) => {
          if (err || !msg.reply) return;
          const workspaceId = msg.subject.slice('nexus.permissions.'.length);
          const respond = (d: string): void => void msg.respond(encoder.encode(d));
          if (!this.permissionAsk) return respond('');
          this.permissionAsk(workspaceId, msg.data, respond);
        },
      }),
    );
    this.subs.push(
      nc.subscribe(subjects.acpAll, {
        callback: (err, msg) => {
          if (err) return;
          this.onAcp(msg.subject, msg.data);
        },
      }),
    );
    await nc.flush();
  }

  /** The one receiver of what ACP sessions' bridges publish (workspace from the subject). */
  onAcpMessage(handler: (e: HookEvent) => void): Disposable {
    this.acpHandler = handler;
    return { dispose: () => void (this.acpHandler === handler && (this.acpHandler = null)) };
  }

  /** Every hook event any workspace publishes, parsed; the workspace id comes from the subject. */
  onHookEvent(handler: (e: HookEvent) => void): Disposable {
    this.hookHandlers.add(handler);
    return { dispose: () => void this.hookHandlers.delete(handler) };
  }

  /** The one receiver of PermissionRequest hooks' questions (workspace from the subject); it must answer each. */
  onPermissionAsk(handler: PermissionAskHandler): Disposable {
    this.permissionAsk = handler;
    return { dispose: () => void (this.permissionAsk === handler && (this.permissionAsk = null)) };
  }

  /** Stops listening (the connection is about to close); handlers stay for the next connection. */
  unsubscribe(): void {
    for (const s of this.subs.splice(0)) s.unsubscribe();
  }

  /** Core is stopping: no hook handler is told anything more. */
  dropHookHandlers(): void {
    this.hookHandlers.clear();
  }

  private async onToolRequest(subject: string, data: Uint8Array, respond: (d: Uint8Array) => boolean): Promise<void> {
    // tools.invoke.<runId>: the one place the caller's identity comes from.
    const runId = subject.slice('tools.invoke.'.length);
    let payload: unknown = null;
    try {
      payload = JSON.parse(decoder.decode(data));
    } catch {
      payload = null;
    }
    const reply = await this.deps.router.invoke(runId, payload);
    respond(encoder.encode(JSON.stringify(reply)));
  }

  private onAcp(subject: string, data: Uint8Array): void {
    const workspaceId = subject.slice('nexus.acp.'.length);
    try {
      this.acpHandler?.({ workspaceId, event: JSON.parse(decoder.decode(data)) as unknown });
    } catch (e) {
      this.deps.log.warn('an ACP bridge message was refused', { workspaceId, error: e });
    }
  }

  private onHook(subject: string, data: Uint8Array): void {
    const workspaceId = subject.slice('nexus.hooks.'.length);
    let event: unknown;
    try {
      event = JSON.parse(decoder.decode(data));
    } catch {
      this.deps.log.warn('hook event is not JSON', { workspaceId });
      return;
    }
    for (const h of this.hookHandlers) {
      try {
        h({ workspaceId, event });
      } catch (e) {
        this.deps.log.error('hook handler failed', { workspaceId, error: e });
      }
    }
  }
}
