import type Docker from 'dockerode';
import type { Preview } from '../../../shared/contract/previews';
import type { Session } from '../../../shared/contract/sessions';
import { NexusError } from '../../../shared/errors';
import { LOCAL_ENGINE, WORKER_NODE, type ExecOptions, type ExecResult } from '../docker';
import type { Logger } from '../log';
import { type SessionsConfig, sessionPaths } from '../sessions';
import type { WorkspaceInfo, WorkspaceTarget } from '../workspaces';
import { attribute, type Attributed, type ForwardedPort } from './attribution';
import { LISTENERS_SCRIPT, parseListeners } from './listeners';
import { PreviewDialer, type DialTarget, type Tunnel } from './preview-dial';
import { previewOrigin, sessionLabel, type PreviewName } from './preview-host';
import type { PreviewUpstream } from './preview-proxy';

export interface PreviewSessions {
  get(ref: string): Promise<Session>;
  list(workspaceRef?: string): Promise<Session[]>;
}

export interface PreviewServiceDeps {
  sessions: PreviewSessions;
  runtime: {
    find(ref: string): WorkspaceInfo | null;
    exec(target: WorkspaceTarget, argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  };
  /** The dockerode of an engine (the local one, or a remote one through its link). */
  docker(engine: string): Docker;
  /** A remote engine's SSH tunnel to addresses on its host (null: its link is TLS). */
  tunnel?(engine: string): Tunnel | null;
  config: Pick<SessionsConfig, 'worktreesDir' | 'stateDir'>;
  /** The loopback host's URL (`http://127.0.0.1:<port>`), null while none listens. */
  hostUrl(): string | null;
  /** A session's reserved port range (issue 42 item 2), once its environment has one. */
  portsOf?(sessionId: string): { from: number; to: number } | null;
  /** The ports the workspace's recipe forwards (devcontainer.json `forwardPorts`), with their labels. */
  forwardedPorts?(workspaceId: string): readonly ForwardedPort[];
  log: Logger;
}

/** How long one look at a workspace's listening ports is reused (a list, and every proxied request's check). */
const DISCOVERY_TTL_MS = 2_000;
/** How long a preview origin, once resolved, is served without looking again (a dial failure forgets it). */
const RESOLVED_TTL_MS = 30_000;

interface Found {
  at: number;
  sessions: Session[];
  attributed: Attributed[];
}

/**
 * Finds each session's previews (the ports its processes listen on, by working directory or reserved range)
 * and resolves a preview origin to a connection to that port. Nothing but a port attributed to the named
 * session is ever reachable through a preview origin.
 */
export class PreviewService {
  private readonly found = new Map<string, Promise<Found>>();
  private readonly resolved = new Map<string, { at: number; upstream: PreviewUpstream }>();
  readonly dialer: PreviewDialer;

  constructor(private readonly d: PreviewServiceDeps) {
    this.dialer = new PreviewDialer(d.log);
  }

  nexusPort(): number | null {
    const url = this.d.hostUrl();
    return url ? Number(new URL(url).port) : null;
  }

  async list(ref: string): Promise<{ sessionId: string; previews: Preview[]; note: string | null }> {
    const session = await this.d.sessions.get(ref);
    const ws = this.d.runtime.find(session.workspaceId);
    if (!ws?.running || !ws.containerId)
      return { sessionId: session.id, previews: [], note: 'The workspace is not running.' };
    const port = this.nexusPort();
    const found = await this.discover(ws, true);
    const previews = found.attributed
      .filter((a) => a.sessionId === session.id)
      .map((a) => ({
        port: a.listener.port,
        url:
          port === null
            ? ''
            : `${previewOrigin({ port: a.listener.port, session: sessionLabel(session), workspace: ws.name }, port)}/`,
        process: a.process,
        attributedBy: a.attributedBy,
        label: a.label,
        loopbackOnly: a.listener.loopbackOnly,
      }));
    const note =
      port === null
        ? 'Nexus has no loopback listener in this process, so previews have no address.'
        : previews.length === 0
          ? 'Nothing listens in this session yet: start its dev server in its worktree (or on its reserved ports).'
          : null;
    return { sessionId: session.id, previews, note };
  }

  /** The upstream of a preview origin, or a typed refusal: not_found for anything not the named session's port. */
  async resolve(name: PreviewName): Promise<PreviewUpstream> {
    const key = `${name.port}-${name.session}.${name.workspace}`;
    const hit = this.resolved.get(key);
    if (hit && Date.now() - hit.at < RESOLVED_TTL_MS) return hit.upstream;
    const ws = this.d.runtime.find(name.workspace);
    if (!ws || ws.name !== name.workspace || !ws.running || !ws.containerId)
      throw new NexusError('not_found', `No running workspace "${name.workspace}".`);
    let found = await this.discover(ws, false);
    let session = found.sessions.find((s) => sessionLabel(s) === name.session);
    const claimed = (f: Found) =>
      f.attributed.find((a) => a.sessionId === session?.id && a.listener.port === name.port);
    if (!session || !claimed(found)) {
      found = await this.discover(ws, true);
      session = found.sessions.find((s) => sessionLabel(s) === name.session);
    }
    const a = claimed(found);
    if (!session || !a)
      throw new NexusError('not_found', `Nothing of session "${name.session}" listens on port ${name.port}.`);
    const engine = ws.engine ?? LOCAL_ENGINE;
    const tunnel = engine === LOCAL_ENGINE ? null : (this.d.tunnel?.(engine) ?? null);
    const target: DialTarget = {
      docker: this.d.docker(engine),
      containerId: ws.containerId,
      port: name.port,
      local: engine === LOCAL_ENGINE,
      loopbackOnly: a.listener.loopbackOnly,
      ipv6Only: a.listener.ipv6Only,
      ...(tunnel ? { tunnel } : {}),
    };
    const upstream: PreviewUpstream = {
      key: `${ws.containerId}/${session.id}/${name.port}`,
      dial: () =>
        this.dialer.dial(target).catch((e: unknown) => {
          this.resolved.delete(key);
          throw e;
        }),
    };
    this.resolved.set(key, { at: Date.now(), upstream });
    return upstream;
  }

  /** One exec per workspace lists its listeners; every session of it is attributed from that one look. */
  private discover(ws: WorkspaceInfo, fresh: boolean): Promise<Found> {
    const cached = this.found.get(ws.id);
    const now = Date.now();
    if (cached && !fresh) return cached;
    if (cached && fresh) {
      // A look made in the last moment (or still under way) is fresh enough.
      const recent = cached.then((f) => (now - f.at < DISCOVERY_TTL_MS ? f : null));
      return recent.then((f) => f ?? this.look(ws));
    }
    return this.look(ws);
  }

  private look(ws: WorkspaceInfo): Promise<Found> {
    const p = (async (): Promise<Found> => {
      const [r, sessions] = await Promise.all([
        this.d.runtime.exec(ws, [WORKER_NODE, '-e', LISTENERS_SCRIPT], { timeoutMs: 10_000, maxOutput: 1024 * 1024 }),
        this.d.sessions.list(ws.id),
      ]);
      if (r.exitCode !== 0)
        throw new NexusError(
          'unavailable',
          `Could not list the workspace's listening ports: ${r.stderr.slice(0, 200)}`,
        );
      const places = sessions
        .filter((s) => s.status !== 'creating')
        .map((s) => ({
          id: s.id,
          worktree: sessionPaths(this.d.config as SessionsConfig, s.id, s.name).worktree,
          ports: this.d.portsOf?.(s.id) ?? null,
        }));
      const forwarded = this.d.forwardedPorts?.(ws.id) ?? [];
      return { at: Date.now(), sessions, attributed: attribute(parseListeners(r.stdout), places, forwarded) };
    })();
    this.found.set(ws.id, p);
    p.catch(() => {
      if (this.found.get(ws.id) === p) this.found.delete(ws.id);
    });
    return p;
  }
}
