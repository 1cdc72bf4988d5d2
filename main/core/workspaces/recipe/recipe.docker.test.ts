import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../../shared/contract';
import { testBaseImage } from '../../../../test/helpers/docker';
import { serveGitRepo } from '../../../../test/helpers/git-http-server';
import { type ContentBlock, type ModelRequest } from '../../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../../test/helpers/real-agent-fleet';
import { waitFor } from '../../../../test/helpers/wait';

// Issue 42 item 1: a repository whose .devcontainer.json builds its own image from a Dockerfile that installs a tool
// from the Debian mirror the default image lacks (jq). The workspace is built from it with Nexus's layer on top; the
// real Claude Code CLI of a session there runs the tool in its own Bash call (asked for by the scripted model), and a
// command as the agent's user in the session's worktree sees the image's and the recipe's environment.

/** The text of the tool_result answering tool call `id`, anywhere in a conversation request, or null. */
const toolResultOf = (req: ModelRequest, id: string): string | null => {
  const text = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.map((b: ContentBlock) => b.text ?? '').join('') : '';
  for (const m of req.body.messages ?? [])
    if (Array.isArray(m.content))
      for (const b of m.content) if (b.type === 'tool_result' && b.tool_use_id === id) return text(b.content);
  return null;
};

describe('devcontainer.json is the recipe', () => {
  const name = `rcp-${randomBytes(3).toString('hex')}`;
  let fleet: RealAgentFleet;
  const events = (): EventMessage[] =>
    fleet
      .eventsText()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as EventMessage);

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    const repo = fleet.env.repo;
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
  }, 600_000);

  afterAll(async () => fleet?.dispose(), 180_000);

  it('builds the workspace from the repository’s Dockerfile with Nexus’s layer; the agent’s own Bash call uses its tool', async () => {
    const ws = await fleet.createWorkspace(name);
    // Running; the one ignored setting is said, nothing else.
    expect([ws.status, ws.reason]).toEqual([
      'running',
      '.devcontainer.json: ignored runArgs (the container is created hardened by Nexus)',
    ]);
    const steps = events()
      .filter((e) => e.name === 'progress')
      .map((e) => (e.payload as { step: string }).step)
      .join('\n');
    expect(steps).toContain('Building from .devcontainer.json');
    expect(steps).toContain('postCreateCommand: post-create ran');

    // The real CLI's Bash tool, asked for by the model, runs jq (a default rule allows it: no dialog).
    const s = await fleet.createSession(name, { name: 'uses-jq', initialMessage: 'which jq do we have?' });
    const call = `toolu_recipe_jq_${randomBytes(4).toString('hex')}`;
    fleet.script(s.id, {
      toolUse: { id: call, name: 'Bash', input: { command: 'jq --version', description: 'Print the jq version' } },
    });
    const result = await waitFor(
      () =>
        fleet
          .turnsOf(s.id)
          .map((t) => toolResultOf(t, call))
          .find((r) => r !== null),
      'the Bash tool’s result in a model request',
      240_000,
    );
    expect(result?.trim()).toBe('jq-1.6');

    const core = fleet.running.core;
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
  }, 480_000);

  it('refuses a recipe that needs a registry’s features, the reason on the workspace, nothing left of it', async () => {
    const r = await serveGitRepo(null);
    r.commit('.devcontainer.json', '{"image":"x","features":{"ghcr.io/devcontainers/features/node:1":{}}}');
    const ws = `${name}-f`;
    const core = fleet.running.core;
    try {
      await fleet.call('workspaces.create', { name: ws, repoUrl: r.url });
      await core.workspaces.idle();
      const f = await fleet.call('workspaces.get', { workspace: ws });
      expect([f.status, f.containerId]).toEqual(['error', null]);
      expect(f.reason).toMatch(
        /^\.devcontainer\.json names features that need a registry \(ghcr\.io\/devcontainers\/features\/node:1\); Nexus installs features from no registry/,
      );
    } finally {
      await fleet.call('workspaces.delete', { workspace: ws }).catch(() => undefined);
      await r.close();
    }
  }, 60_000);
});
