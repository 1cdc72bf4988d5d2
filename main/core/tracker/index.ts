import type { Session } from '../../../shared/contract/sessions';
import type { SecretSummary } from '../../../shared/contract/vault';
import type { CoreModule } from '../core-module';
import { DisposableStore, toDisposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import { Names, type NameLookup, type PlatformService } from '../platform';
import type { CreateSessionInput } from '../sessions';
import type { Db } from '../store';
import type { WorkspaceInfo } from '../workspaces';
import type { TrackerConfig } from './config';
export { TrackerConfig } from './config';
import { IssueSessions } from './issue-sessions';
import { OutboxSender } from './outbox-sender';
import { OutboxStore } from './outbox-store';
import { trackerHandlers } from './tracker-handlers';
import { TrackerMirror } from './tracker-mirror';
import { TrackerService } from './tracker-service';
import { TrackerStore } from './tracker-store';

export interface TrackerModuleDeps {
  /** The platform tools' connection: outbox rows commit with the board comments they mirror. */
  db: Db;
  platform: Pick<PlatformService, 'tasks' | 'feed' | 'mirror'>;
  workspace(ref: string): WorkspaceInfo;
  sessions: { create(input: CreateSessionInput): Promise<Session> };
  secrets: { list(): SecretSummary[]; resolve(id: string): Promise<{ value: string; host: string }> };
  /** Told when a session's branch was pushed. */
  onPushed(listener: (r: { taskId: string | null; branch: string; link: { url: string } | null }) => void): {
    dispose(): void;
  };
  events: EventBus;
  /** Workspace and session names for who wrote a comment (their rooms' stores). */
  names: NameLookup;
  config: TrackerConfig;
  log: Logger;
}

/**
 * The tracker module (docs/tracker.md): a workspace's tracker (Redmine, GitHub Issues), the board mirrored there
 * through an outbox, sessions started from issues: one of core's modules (core-module.ts).
 */
export function createTracker(d: TrackerModuleDeps): CoreModule {
  const closers = new DisposableStore();
  const log = d.log.child({ component: 'tracker' });
  const store = new TrackerStore(d.db);
  const outbox = new OutboxStore(d.db);
  const changed = (taskId: string): void => d.platform.feed.changed({ taskId, kind: 'comment' });
  const service = new TrackerService({
    store,
    workspace: d.workspace,
    task: (id) => {
      const t = d.platform.tasks.get(id);
      return t ? { title: t.title, project: d.platform.tasks.project(id) } : null;
    },
    secrets: d.secrets,
    changed,
    log,
  });
  const sender = closers.add(
    new OutboxSender({
      outbox,
      trackerFor: (id) => service.trackerFor(id),
      changed,
      log,
      retryBaseMs: d.config.retryBaseMs,
      retryMaxMs: d.config.retryMaxMs,
    }),
  );
  const mirror = new TrackerMirror({
    store,
    outbox,
    names: () => new Names(d.db, d.names),
    kick: () => sender.kick(),
    service,
  });
  d.platform.mirror.current = mirror;
  closers.add(toDisposable(() => void (d.platform.mirror.current = null)));
  const sessions = new IssueSessions({
    service,
    store,
    mirror,
    workspace: d.workspace,
    createSession: (input) => d.sessions.create(input),
    log,
  });
  return {
    name: 'tracker',
    handlers: trackerHandlers({ service, sessions, outbox, kick: () => sender.kick() }),
    react: () => [
      d.onPushed((r) => sessions.pushed(r)),
      // An unlocked vault may let waiting rows go.
      d.events.subscribe((e) => e.name === 'vault.changed' && sender.kick()),
    ],
    /** What was stored before a crash goes now; pick-up rules are followed. */
    start: (): void => {
      sender.kick();
      closers.add(sessions.follow(d.config.pickupTickMs));
    },
    dispose: () => closers.dispose(),
  };
}
