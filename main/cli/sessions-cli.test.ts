import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCoreDb, coreDb, repoRoot } from '../../test/helpers/core';
import { insertSession } from '../../test/helpers/session-row';
import { tempDir } from '../../test/helpers/temp-dir';
import { UsageStore } from '../core/gateway/usage-store';
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

  it('shows a session’s tokens and estimate in ls, today’s in usage, and the ledger as CSV', async () => {
    const db = coreDb(running.core);
    const id = randomUUID();
    const now = new Date();
    db.prepare(
      `INSERT INTO workspaces (id, name, repo_url, status, container_id, volume, created_at, updated_at)
       VALUES (?, 'costs', 'https://example.com/costs.git', 'stopped', NULL, ?, 't', 't')`,
    ).run(id, `${id}-vol`);
    const s = insertSession(db, { workspace_id: id, name: 'spender' });
    const counts = {
      model: 'claude-sonnet-4-5-20250929',
      input: 1_000_000,
      output: 20_000,
      cacheWrite: 0,
      cacheRead: 0,
    };
    const ledger = new UsageStore(db);
    await ledger.record({
      requestId: randomUUID(),
      sessionId: s.id,
      workspaceId: id,
      agent: 'claude',
      taskId: null,
      counts,
      at: now,
    });
    await ledger.close();
    const ls = await run(['ls']);
    // 1M input at $3 + 20k output at $15
    expect(ls.stdout).toMatch(/^ {2}costs\/spender +claude +Offline .*\(1\.0M tokens, ≈\$3\.30 est\.\)$/m);
    const json = JSON.parse((await run(['ls', '--json'])).stdout) as FleetListing;
    const listed = json.workspaces.find((w) => w.name === 'costs')?.sessions[0];
    expect(listed?.usage).toMatchObject({ totals: { total: 1_020_000 }, estimate: { usd: 3.3, unpricedModels: [] } });
    const usage = await run(['usage']);
    expect(usage).toMatchObject({ code: 0, stderr: '' });
    expect(usage.stdout).toMatch(
      /^Today \(UTC\): 1,020,000 model tokens .* in 1 requests\nCost: ≈ \$3\.30 \(estimate\)/,
    );
    const csv = await run(['usage', '--csv']);
    expect(csv.stdout.split('\r\n').slice(1)).toEqual([
      `costs,spender,claude,,${now.toISOString().slice(0, 10)},1000000,20000,0,0,1,3.300000,true`,
      '',
    ]);
  });
});
