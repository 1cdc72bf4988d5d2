import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { EventPayload } from '../../../shared/contract';
import { DisposableStore, toDisposable, type Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Handlers } from '../handlers';
import type { SessionSignalMap } from '../sessions';
import { parsePreviewHost, type PreviewName } from './preview-host';
import { PreviewProxy } from './preview-proxy';
import { PreviewService, type PreviewServiceDeps } from './preview-service';
import { ScreenshotStore } from './screenshot-store';
import { findChromium, Screenshotter, SHOT_BOUNDS } from './screenshots';

export { parsePreviewHost, previewOrigin, sessionLabel, type PreviewName } from './preview-host';
export { UI_COOKIE } from './preview-proxy';
export { findChromium } from './screenshots';

/** What the loopback host does with a request whose Host is a preview origin (and nothing else does). */
export interface PreviewFront {
  /** The preview a request's Host names on the listener's port, or null: then it is not a preview request. */
  match(req: IncomingMessage, listenerPort: number): PreviewName | null;
  handle(req: IncomingMessage, res: ServerResponse, name: PreviewName): Promise<void>;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, name: PreviewName): void;
}

export interface PreviewsDeps extends PreviewServiceDeps {
  sessions: PreviewServiceDeps['sessions'] & {
    on(name: 'turnEnded', listener: (e: SessionSignalMap['turnEnded']) => void): Disposable;
  };
  events: EventBus;
  dataDir: string;
  /** The Chromium that takes screenshots (default: findChromium(); null: no screenshots). */
  chromium?: string | null;
}

type PreviewOps = 'previews.list' | 'previews.screenshots';

/**
 * Live previews and their screenshots (docs/previews.md): each session's listening ports at origins of
 * their own, proxied by the loopback host, and a screenshot of each at every turn end.
 */
export function createPreviews(d: PreviewsDeps) {
  const service = new PreviewService(d);
  const proxy = new PreviewProxy((name) => service.resolve(name), d.log);
  const store = new ScreenshotStore(join(d.dataDir, 'previews'));
  const shooter = new Screenshotter(d.chromium === undefined ? findChromium() : d.chromium, d.log);
  const disposables = new DisposableStore();
  disposables.add(toDisposable(() => proxy.dispose()));
  disposables.add(toDisposable(() => shooter.dispose()));

  /** Screenshots of a session's previews now, kept as its next turn end's; resolves how many were taken. */
  const shoot = async (sessionId: string): Promise<number> => {
    if (!shooter.available) return 0;
    const { previews } = await service.list(sessionId);
    const seq = store.lastSeq(sessionId) + 1;
    let taken = 0;
    for (const p of previews.slice(0, SHOT_BOUNDS.perTurn)) {
      if (!p.url) continue;
      const jpeg = await shooter.shoot(p.url);
      if (!jpeg) continue;
      store.add(sessionId, seq, p.port, jpeg);
      taken += 1;
    }
    if (taken > 0) d.events.emit('previews.changed', { sessionId });
    return taken;
  };

  const front: PreviewFront = {
    match: (req, listenerPort) => parsePreviewHost(req.headers.host, listenerPort),
    handle: (req, res, name) => proxy.handle(req, res, name),
    upgrade: (req, socket, head, name) => proxy.upgrade(req, socket, head, name),
  };

  const handlers: Pick<Handlers, PreviewOps> = {
    'previews.list': (input) => service.list(input.session),
    'previews.screenshots': async (input) => {
      const s = await d.sessions.get(input.session);
      return { sessionId: s.id, screenshots: store.list(s.id) };
    },
  };

  return {
    service,
    front,
    handlers,
    shoot,
    /** A screenshot at every turn end; a deleted session's screenshots go with it. */
    start(): Disposable {
      disposables.add(
        d.sessions.on('turnEnded', ({ sessionId }) => {
          shoot(sessionId).catch((e: unknown) =>
            d.log.warn('preview screenshots at turn end failed', { sessionId, error: e }),
          );
        }),
      );
      disposables.add(
        d.events.subscribe((e) => {
          const removed =
            e.name === 'sessions.changed' ? (e.payload as EventPayload<'sessions.changed'>).removedId : null;
          if (removed) store.forget(removed);
        }),
      );
      return disposables;
    },
    dispose: () => disposables.dispose(),
  };
}

export type Previews = ReturnType<typeof createPreviews>;
