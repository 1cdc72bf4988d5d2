import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertSession } from '../../../../test/helpers/session-row';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { EventBus } from '../../events';
import { createLogger } from '../../log';
import { Redactor } from '../../redact';
import { openStore, type Db } from '../../store/open';
import type { WorkspaceInfo } from '../../workspaces/runtime';
import { SessionsConfig } from '../config';
import { SessionService, type SessionRuntime } from '../session-service';
import { testDrivers } from '../../../../test/helpers/agent-drivers';

/** A runtime that must never be asked to reach a container: hook events touch only the store. */
const storeOnlyRuntime: SessionRuntime = {
  run: () => Promise.reject(new Error('no queue in this test')),
  exec: () => Promise.reject(new Error('no container in this test')),
  info: () => {
    throw new Error('no workspace lookup in this test');
  },
  find: (): WorkspaceInfo | null => null,
  list: () => [],
  idle: () => Promise.resolve(),
};

describe('the agentStopped signal', () => {
  const dir = tempDir('nexus-agent-stopped-');
  let db: Db;
  let service: SessionService;
  const stopped: { sessionId: string; workspaceId: string }[] = [];
  const hook = (sessionId: string, workspaceId: string, hook_event_name: string) => ({
    sessionId,
    workspaceId,
    at: new Date().toISOString(),
    event: { hook_event_name },
  });

  beforeEach(() => {
    db = openStore(join(dir.path, `${Math.random()}.db`));
    db.pragma('foreign_keys = OFF');
    const redactor = new Redactor();
    const log = createLogger({ redactor });
    service = new SessionService({
      db,
      events: new EventBus(redactor, log),
      log,
      config: SessionsConfig.parse({}),
      runtime: storeOnlyRuntime,
      tools: { hookScript: '', inboxSendScript: '', relayScript: '' },
      hookTarget: () => null,
      maxSessionsPerWorkspace: 8,
      drivers: testDrivers(),
    });
    stopped.length = 0;
    service.on('agentStopped', (e) => stopped.push(e));
  });
  afterEach(() => db.close());
  afterAll(() => dir.remove());

  it("is raised for a session's Stop and SessionEnd from its own workspace, and for nothing else", () => {
    const s = insertSession(db, { workspace_id: 'w1', name: 'one', agent_state: 'working' });
    service.applyHook('w1', hook(s.id, 'w1', 'PreToolUse'));
    service.applyHook('w1', hook(s.id, 'w1', 'Stop'));
    service.applyHook('w1', hook(s.id, 'w1', 'SessionEnd'));
    expect(stopped).toEqual([
      { sessionId: s.id, workspaceId: 'w1' },
      { sessionId: s.id, workspaceId: 'w1' },
    ]);
  });

  it("is never raised for a Stop naming another workspace's session, whatever the payload claims", () => {
    const s = insertSession(db, { workspace_id: 'w1', name: 'one' });
    service.applyHook('w2', hook(s.id, 'w2', 'Stop'));
    service.applyHook('w2', hook(s.id, 'w1', 'Stop'));
    service.applyHook('w1', hook(s.id, 'w2', 'Stop'));
    expect(stopped).toEqual([]);
  });
});
