import type { Disposable } from '../../disposable';
import type { Handlers } from '../../handlers';
import type { EventBus } from '../../events';
import type { Logger } from '../../log';
import type { Redactor } from '../../redact';
import type { Db } from '../../store';
import { type WorkspaceRuntime, type RecipeStore, WorkspaceStore } from '../../workspaces';
import type { SessionsConfig } from '../config';
import { SessionLookup } from '../session-lookup';
import { SessionStore } from '../session-store';
import { SessionUpdates } from '../session-updates';
import { SessionPorts } from './session-ports';
import { SessionSetup, sessionFileRows } from './session-setup';
import { SessionSetupStore } from './session-setup-store';

export interface SessionSetupWiring {
  db: Db;
  events: EventBus;
  log: Logger;
  redactor: Redactor;
  config: SessionsConfig;
  runtime: WorkspaceRuntime;
  recipes: RecipeStore;
  /** A vault secret's value (a locked vault: vault_locked). */
  secret(secretId: string): Promise<string>;
}

/**
 * Per-session setup, run, files and ports: the service the sessions module calls at create and launch (its hooks),
 * and the operations of shared/contract/session-setup.ts.
 */
export function createSessionSetup(w: SessionSetupWiring): {
  setup: SessionSetup;
  /** Forgets a deleted session's setup state and closes its run window (subscribed at core's start). */
  react(): Disposable[];
  ports: SessionPorts;
  handlers: Pick<
    Handlers,
    'sessions.setup' | 'sessions.retrySetup' | 'sessions.run' | 'workspaces.sessionFiles' | 'workspaces.setSessionFiles'
  >;
} {
  const sessions = new SessionStore(w.db);
  const workspaces = new WorkspaceStore(w.db);
  const lookup = new SessionLookup(sessions, w.runtime);
  const updates = new SessionUpdates(sessions, w.events, w.runtime);
  const store = new SessionSetupStore(w.db);
  const ports = new SessionPorts(w.db);
  const setup = new SessionSetup({
    store,
    ports,
    runtime: w.runtime,
    config: w.config,
    events: w.events,
    log: w.log.child({ component: 'session-setup' }),
    redactor: w.redactor,
    recipeOf: (id) => w.recipes.get(id)?.recipe ?? null,
    engineOf: (id) => workspaces.get(id).engine,
    secret: w.secret,
    row: (ref) => lookup.row(ref),
    patch: (id, p) => void updates.patch(id, p),
  });
  const listed = (workspaceId: string) => ({
    files: store.files(workspaceId).map((f) => ({ path: f.path, secretId: f.secretId, literal: f.content !== null })),
  });
  const react = (): Disposable[] => [
    w.events.subscribe((m) => {
      const gone = m.name === 'sessions.changed' ? (m.payload as { removedId?: string }).removedId : undefined;
      if (gone) setup.sessionGone(gone);
    }),
  ];
  return {
    setup,
    react,
    ports,
    handlers: {
      'sessions.setup': (input) => setup.view(input.session),
      'sessions.retrySetup': (input) => setup.retry(input.session, input.skip),
      'sessions.run': (input) => setup.run(input.session),
      'workspaces.sessionFiles': (input) => Promise.resolve(listed(w.runtime.info(input.workspace).id)),
      'workspaces.setSessionFiles': async (input) => {
        const ws = w.runtime.info(input.workspace);
        const rows = sessionFileRows(input.files);
        // A named secret must exist now (its value is read again at each create).
        for (const f of rows) if (f.secretId) await w.secret(f.secretId);
        store.setFiles(ws.id, rows);
        return listed(ws.id);
      },
    },
  };
}
