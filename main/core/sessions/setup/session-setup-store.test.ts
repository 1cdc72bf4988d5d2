import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../../store/open';
import { SessionPortStore } from './session-port-store';
import { SessionPorts } from './session-ports';
import { SessionSetupStore } from './session-setup-store';

describe('the session setup store', () => {
  const dir = tempDir();

  const withSession = () => {
    const db = openStore(join(dir.path, `${Math.random()}.db`));
    db.prepare(
      "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES ('w1', 'web', 'https://x/r.git', 'running', 'v', 'now', 'now')",
    ).run();
    db.prepare(
      `INSERT INTO sessions (id, workspace_id, name, branch, status, agent_session_id, created_at, updated_at)
       VALUES ('s1', 'w1', 's1', 'nexus/s1', 'running', 's1', 'now', 'now')`,
    ).run();
    return db;
  };

  it("saves a session's setup state and replaces it; a session gone gets no row and no error", () => {
    const db = withSession();
    const store = new SessionSetupStore(db);
    store.saveSetup('s1', { state: 'running', exitCode: null, output: 'installing' });
    store.saveSetup('s1', { state: 'ok', exitCode: 0, output: 'ok' });
    expect(store.setup('s1')).toEqual({ state: 'ok', exitCode: 0, output: 'ok' });
    store.saveSetup('gone', { state: 'ok', exitCode: 0, output: 'ok' });
    expect(store.setup('gone')).toBeNull();
    db.prepare("DELETE FROM sessions WHERE id = 's1'").run();
    expect(store.setup('s1')).toBeNull();
    db.close();
  });

  it('gives each session the lowest free port block on its engine, and keeps it', () => {
    const db = withSession();
    const ports = new SessionPorts(db);
    expect(ports.of('s1')).toBeNull();
    expect(ports.ensure('s1', 'local')).toEqual({ first: 20_000, last: 20_009 });
    expect(ports.ensure('s1', 'local')).toEqual({ first: 20_000, last: 20_009 });
    expect(new SessionPortStore(db).takenOn('local')).toEqual(new Set([20_000]));
    expect(SessionPorts.env(ports.of('s1') ?? { first: 0, last: 0 })).toEqual({
      PORT: '20000',
      NEXUS_PORTS: '20000-20009',
    });
    db.close();
  });
});
