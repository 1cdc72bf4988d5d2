import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../../shared/contract';
import { operatorContext } from '../../handlers';
import { testCore } from '../../../../test/helpers/core';
import { ensureTestWorkerImage, testBaseImage, workspaceTestConfig } from '../../../../test/helpers/docker';
import { serveGitRepo } from '../../../../test/helpers/git-http-server';
import { waitFor } from '../../../../test/helpers/wait';
import type { Core } from '../..';

// Issue 42 item 1: a repository whose .devcontainer.json builds its own image from a Dockerfile that installs a tool
// from the Debian mirror the default image lacks (jq). The workspace is built from it with Nexus's layer on top, and
// a command as the agent's user in a session's worktree uses the tool, with the image's and the recipe's environment.
const op = operatorContext('internal');

describe('devcontainer.json is the recipe', () => {
  const name = `rcp-${randomBytes(3).toString('hex')}`;
  const seen: EventMessage[] = [];
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(null);
    repo.commit(
      'recipe.Dockerfile',
      [
        `FROM ${testBaseImage()}`,
        'RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends jq >/dev/null && rm -rf /var/lib/apt/lists/*',
        'ENV FROM_THE_IMAGE=kept',
        '',
      ].join('\n'),
    );
    repo.commit(
      '.devcontainer.json',
      `{
        // The repository's own environment: jq from the Debian mirror.
        "build": { "dockerfile": "recipe.Dockerfile", "context": "." },
        "containerEnv": { "GREETING": "hello from the recipe" },
        "remoteEnv": { "BOTH": "\${containerEnv:GREETING} and \${containerEnv:FROM_THE_IMAGE}" },
        "postCreateCommand": "echo post-create ran; jq --version > /home/nexus/.recipe-made",
        "runArgs": ["--privileged"],
      }`,
    );
    env = await testCore({
      ...workspaceTestConfig(),
      sessions: { agentCommand: ['sh', '-c', 'exec sleep 100000', 'agent'] },
      agent: { startupTimeoutMs: 600_000 },
    });
    core = env.core;
    core.events.subscribe((e) => seen.push(e));
  }, 300_000);

  afterAll(async () => {
    await core?.dispatcher.call('workspaces.delete', { workspace: name }, op).catch(() => undefined);
    await env?.cleanup();
    await repo?.close();
  });

  it('builds the workspace from the repository’s Dockerfile with Nexus’s layer, and the session’s commands use its tool', async () => {
    await core.dispatcher.call('workspaces.create', { name, repoUrl: repo.url }, op);
    await core.workspaces.idle();
    const ws = await core.dispatcher.call('workspaces.get', { workspace: name }, op);
    // Running; the one ignored setting is said, nothing else.
    expect([ws.status, ws.reason]).toEqual([
      'running',
      '.devcontainer.json: ignored runArgs (the container is created hardened by Nexus)',
    ]);
    const steps = seen
      .filter((e) => e.name === 'progress')
      .map((e) => (e.payload as { step: string }).step)
      .join('\n');
    expect(steps).toContain('Building from .devcontainer.json');
    expect(steps).toContain('postCreateCommand: post-create ran');

    const s = await core.dispatcher.call('sessions.create', { workspace: name, name: 'uses-jq' }, op);
    await waitFor(
      async () => (await core.dispatcher.call('sessions.get', { session: s.id }, op)).status === 'running',
      'the session to run',
      60_000,
    );
    const info = core.workspaces.runtime.info(name);
    const inWorktree = (script: string) =>
      core.workspaces.runtime.exec(info, ['sh', '-c', script], {
        user: '1000:1000',
        workingDir: '/workspace/.nexus-worktrees/uses-jq',
      });
    const r = await inWorktree(
      'id -u; echo \'{"tool":"jq"}\' | jq -r .tool; jq -rn env.GREETING; echo "$BOTH"; cat ~/.recipe-made',
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      '1000',
      'jq',
      'hello from the recipe',
      'hello from the recipe and kept',
      'jq-1.6',
      '',
    ]);
    // Nexus's helpers and tmux came with its layer; the image's own PATH follows Nexus's directories.
    const tools = await inWorktree(
      'command -v nexus-with-credential; command -v tmux; echo "$PATH"; /opt/nexus/node/bin/node -v',
    );
    expect(tools.stdout).toMatch(
      /^\/opt\/nexus\/bin\/nexus-with-credential\n\/usr\/bin\/tmux\n.*\/opt\/nexus\/bin:\/usr\/local\/sbin/,
    );
  }, 240_000);

  it('refuses a recipe that needs a registry’s features, the reason on the workspace, nothing left of it', async () => {
    const r = await serveGitRepo(null);
    r.commit('.devcontainer.json', '{"image":"x","features":{"ghcr.io/devcontainers/features/node:1":{}}}');
    const ws = `${name}-f`;
    try {
      await core.dispatcher.call('workspaces.create', { name: ws, repoUrl: r.url }, op);
      await core.workspaces.idle();
      const f = await core.dispatcher.call('workspaces.get', { workspace: ws }, op);
      expect([f.status, f.containerId]).toEqual(['error', null]);
      expect(f.reason).toMatch(
        /^\.devcontainer\.json names features that need a registry \(ghcr\.io\/devcontainers\/features\/node:1\); Nexus installs features from no registry/,
      );
    } finally {
      await core.dispatcher.call('workspaces.delete', { workspace: ws }, op).catch(() => undefined);
      await r.close();
    }
  }, 60_000);
});
