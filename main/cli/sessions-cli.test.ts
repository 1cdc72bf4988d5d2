import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCoreDb, coreDb, repoRoot } from '../../test/helpers/core';
import { insertSession } from '../../test/helpers/session-row';
import { tempDir } from '../../test/helpers/temp-dir';
import { serve, type Running } from '../serve';
import { runCli } from './cli-app';
import { testContext } from './cli-test-context';
import type { FleetListing } from './ls-command';

/**
 * The session commands against a real running app (core + loopback host, no Docker needed): what
 * they print, and how they fail when the app refuses. The real-session walk is cli-sessions.docker.test.ts.
 */
describe('nexus ls, new, send, rm, allow and deny against the running app', () => {
  const dir = tempDir('nexus-cli-sessions-');
  let running: Running;
  const run = async (argv: string[], input?: string) => {
    const t = testContext({ defaultDataDir: dir.path });
    if (input !== undefined) t.stdin.end(input);
    const code = await runCli(argv, t.ctx);
    return { code, stdout: t.stdout(), stderr: t.stderr() };
  };

  beforeAll(async () => {
    running = await serve({ dataDir: dir.path, appRoot: repoRoot, port: 0, config: { version: 'test' } });
  });
  afterAll(async () => {
    closeCoreDb(running.core);
    await running.stop();
    dir.remove();
  });

  it('says what needs you first (here a vault not set up), then that there are no workspaces yet, in text and JSON', async () => {
    const text = await run(['ls']);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/^Needs you:\n {2}- Vault not set up: [^\n]+\n/);
    expect(text.stdout).toMatch(/\n\nNo workspaces yet: create one in the UI\.\n$/);
    const json = JSON.parse((await run(['ls', '--json'])).stdout) as FleetListing;
    expect(json).toMatchObject({ workspaces: [], permissionRequests: [] });
    expect(json.needsYou[0]).toMatchObject({ kind: 'vault', state: 'uninitialized', title: 'Vault not set up' });
  });

  it('lists each workspace with its sessions, named workspace/session, with their attention', async () => {
    const db = coreDb(running.core);
    const id = randomUUID();
    const now = new Date().toISOString();
    db.prepare(
      `INSERT INTO workspaces (id, name, repo_url, status, container_id, volume, created_at, updated_at)
       VALUES (?, 'web', 'https://example.com/web.git', 'stopped', NULL, ?, ?, ?)`,
    ).run(id, `${id}-vol`, now, now);
    insertSession(db, { workspace_id: id, name: 'fix-login' });
    insertSession(db, { workspace_id: id, name: 'docs' });
    const text = await run(['ls']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^web {2}\w+/m);
    expect(text.stdout).toMatch(/^ {2}web\/fix-login {2}claude {2}Offline {4}Workspace web is not running$/m);
    expect(text.stdout).toMatch(/^ {2}web\/docs {7}claude {2}Offline/m);
    const json = JSON.parse((await run(['ls', '--json'])).stdout) as FleetListing;
    expect(json.workspaces.map((w) => [w.name, w.sessions.map((s) => [s.ref, s.attention?.level])])).toEqual([
      [
        'web',
        expect.arrayContaining([
          ['web/docs', 'offline'],
          ['web/fix-login', 'offline'],
        ]),
      ],
    ]);
  });

  it('fails with exit 1 and the app’s reason for what does not exist', async () => {
    const cases: [string[], RegExp][] = [
      [['new', 'nowhere', 'one', '-m', 'hi'], /^nexus: .*nowhere.* \(not_found\)\n$/],
      [['send', 'web/nobody', 'hello'], /^nexus: .*nobody.* \(not_found\)\n$/],
      [['rm', 'web/nobody'], /^nexus: .*nobody.* \(not_found\)\n$/],
      [['allow', 'no-such-request'], /^nexus: .*\((not_found|conflict)\)\n$/],
      [['deny', 'no-such-request', '--note', 'no'], /^nexus: .*\((not_found|conflict)\)\n$/],
      [['new', 'web', 'Not A Name'], /^nexus: .*lowercase.*\(bad_request\)\n$/],
    ];
    for (const [argv, reason] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.stderr, argv.join(' ')).toMatch(reason);
    }
  });
});
