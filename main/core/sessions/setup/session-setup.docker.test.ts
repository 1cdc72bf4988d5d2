import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../../shared/contract';
import type { Session } from '../../../../shared/contract/sessions';
import { operatorContext } from '../../handlers';
import { testCore } from '../../../../test/helpers/core';
import { ensureTestWorkerImage, workspaceTestConfig } from '../../../../test/helpers/docker';
import { serveGitRepo } from '../../../../test/helpers/git-http-server';
import { waitFor } from '../../../../test/helpers/wait';
import type { Core } from '../..';

// Issue 42 item 2, with real repositories over HTTP and one core: a recipe with only postCreateCommand and
// customizations.nexus (Nexus's own image, no build); the per-session setup runs before the agent, its failure is shown
// on the session and the agent is not started until a retry succeeds; the operator's .env.local lands 0600 in each
// worktree; two sessions Run the same dev server, each on its own PORT, and both answer.
const op = operatorContext('internal');
const AGENT = 'exec sleep 100001';
const SERVER = `const http = require('http');
http.createServer((q, s) => s.end(process.cwd().split('/').pop() + ' on ' + process.env.PORT)).listen(process.env.PORT);
`;

describe('per-session setup and run from the recipe', () => {
  const name = `stp-${randomBytes(3).toString('hex')}`;
  const seen: EventMessage[] = [];
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  const call = ((method: string, input: unknown) => core.dispatcher.call(method as never, input as never, op)) as <T>(
    method: string,
    input: unknown,
  ) => Promise<T>;
  const exec = async (script: string, cwd = '/workspace'): Promise<string> => {
    const r = await core.workspaces.runtime.exec(core.workspaces.runtime.info(name), ['sh', '-c', script], {
      user: '1000:1000',
      workingDir: cwd,
    });
    if (r.exitCode !== 0) throw new Error(`${script}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const session = (id: string) => call<Session>('sessions.get', { session: id });
  const agents = () => exec(`ps -eo args | grep -c '^sleep 100001' || true`);

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(null);
    repo.commit('server.js', SERVER);
    repo.commit(
      '.devcontainer.json',
      JSON.stringify({
        postCreateCommand: 'echo installing for the workspace; touch /home/nexus/.post-created',
        postStartCommand: ['sh', '-c', 'echo started >> /home/nexus/.post-started'],
        customizations: {
          nexus: {
            setup:
              'echo "setting up on $PORT ($NEXUS_PORTS)"; . ./.env.local && [ "$SETUP_OK" = yes ] || { echo "setup: .env.local says no"; exit 4; }',
            run: 'node server.js',
          },
        },
      }),
    );
    env = await testCore({
      ...workspaceTestConfig(),
      sessions: { agentCommand: ['sh', '-c', AGENT, 'agent'] },
      agent: { startupTimeoutMs: 600_000 },
    });
    core = env.core;
    core.events.subscribe((e) => seen.push(e));
    await call('workspaces.create', { name, repoUrl: repo.url });
    await core.workspaces.idle();
  }, 120_000);

  afterAll(async () => {
    await core?.dispatcher.call('workspaces.delete', { workspace: name }, op).catch(() => undefined);
    await env?.cleanup();
    await repo?.close();
  });

  it('runs postCreateCommand and postStartCommand once at create, the output as the create’s progress, in Nexus’s own image', async () => {
    const ws = await call<{ status: string; reason: string | null; image: string | null }>('workspaces.get', {
      workspace: name,
    });
    expect([ws.status, ws.reason]).toEqual(['running', null]);
    const steps = seen.filter((e) => e.name === 'progress').map((e) => (e.payload as { step: string }).step);
    expect(steps).toContain('postCreateCommand: installing for the workspace');
    expect(await exec('ls ~/.post-created')).toBe('/home/nexus/.post-created');
    // postStartCommand (an argv, run as it is) ran once too: the create's start.
    expect(await exec('cat ~/.post-started')).toBe('started');
  });

  let first = '';
  it('shows a failed setup on the session and starts no agent; a retry after the fix starts it', async () => {
    await call('workspaces.setSessionFiles', {
      workspace: name,
      files: [{ path: '.env.local', content: 'SETUP_OK=no\n' }],
    });
    first = (await call<Session>('sessions.create', { workspace: name, name: 'first' })).id;
    const failed = await waitFor(
      async () => {
        const s = await session(first);
        return s.status === 'error' ? s : null;
      },
      'the setup to fail',
      30_000,
    );
    expect(failed.reason).toMatch(
      /^Setup failed \(exit 4\): .*setup: \.env\.local says no\. The agent was not started/,
    );
    const view = await call<{
      setup: { state: string; exitCode: number; output: string };
      ports: { first: number; last: number };
    }>('sessions.setup', { session: first });
    expect(view.setup).toMatchObject({ state: 'failed', exitCode: 4 });
    expect(view.setup.output).toContain(
      `setting up on ${view.ports.first} (${view.ports.first}-${view.ports.first + 9})`,
    );
    const wt = '/workspace/.nexus-worktrees/first';
    expect(await exec('stat -c %a .env.local', wt)).toBe('600');
    expect(await agents()).toBe('0');
    // The session's window says it too (what the terminal shows).
    expect(await exec(`tmux capture-pane -p -t '=nexus:first' | grep -c 'the setup failed (exit 4)'`)).toBe('1');

    await exec('echo SETUP_OK=yes > .env.local', wt);
    await call('sessions.retrySetup', { session: first });
    await waitFor(
      async () => (await call<{ setup: { state: string } }>('sessions.setup', { session: first })).setup.state === 'ok',
      'the retried setup',
      30_000,
    );
    expect((await session(first)).status).toBe('running');
    await waitFor(async () => (await agents()) === '1', 'the agent to start', 10_000);
  }, 60_000);

  it('gives each session its own ports; Run starts the same dev server in each, and both answer', async () => {
    // A file from a vault secret the operator chose, beside the literal one: its value lands 0600, in no launch script.
    await call('vault.init', {});
    const secret = await call<{ id: string }>('secrets.create', {
      name: 'db url',
      kind: 'generic',
      value: 'postgres://s3cr3t-value',
    });
    await call('workspaces.setSessionFiles', {
      workspace: name,
      files: [
        { path: '.env.local', content: 'SETUP_OK=yes\n' },
        { path: 'config/db.url', secretId: secret.id },
      ],
    });
    const second = (await call<Session>('sessions.create', { workspace: name, name: 'second' })).id;
    await waitFor(
      async () =>
        (await call<{ setup: { state: string } }>('sessions.setup', { session: second })).setup.state === 'ok',
      'the second setup',
      30_000,
    );
    const ports: number[] = [];
    for (const id of [first, second]) {
      const v = await call<{ run: { windowId: string | null }; ports: { first: number } }>('sessions.run', {
        session: id,
      });
      expect(v.run.windowId).toMatch(/^@\d+$/);
      ports.push(v.ports.first);
    }
    expect(ports[0]).not.toBe(ports[1]);
    const wt = '/workspace/.nexus-worktrees/second';
    expect(await exec('stat -c %a config/db.url; cat config/db.url', wt)).toBe('600\npostgres://s3cr3t-value');
    expect(await exec('grep -rl s3cr3t-value /tmp/nexus-sessions 2>/dev/null || echo none')).toBe('none');
    const answers = await waitFor(
      async () => {
        const got = await exec(
          `for p in ${ports.join(' ')}; do node -e "fetch('http://127.0.0.1:'+process.argv[1]).then(r=>r.text()).then(console.log,()=>console.log('down'))" $p; done`,
        );
        return got.includes('down') ? null : got;
      },
      'both dev servers to answer',
      20_000,
    );
    expect(answers.split('\n')).toEqual([`first on ${ports[0]}`, `second on ${ports[1]}`]);
    const view = await call<{ run: { output: string | null } }>('sessions.setup', { session: second });
    expect(view.run.output).toContain(`Nexus: run: node server.js (PORT=${ports[1]})`);
  }, 90_000);
});
