import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FIXTURE_COMMAND,
  callPlatformTool,
  fireHook,
  fixtureRecords,
  installAgentFixture,
} from '../test/helpers/agent-fixture';
import { removeWorkspaceContainers } from './fixtures/containers';
import { expect, startNexus, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';
import { ensureTestWorkerImage, testBaseImage } from '../test/helpers/docker';
import { serveGitRepo } from '../test/helpers/git-http-server';
import { bundleWorkerScripts } from '../test/helpers/worker-scripts';

test('creates a session with an initial message, sends a message, and sees the state change after a hook event', async ({
  page,
}) => {
  test.setTimeout(900_000);
  await ensureTestWorkerImage();
  const repo = await serveGitRepo(null);
  const tmp = mkdtempSync(join(tmpdir(), 'nexus-e2e-sessions-'));
  const scripts = await bundleWorkerScripts(tmp);
  // The agent is the fixture (the real CLI needs a model); docker, git, tmux, NATS and the UI are real.
  const nexus = await startNexus({
    NEXUS_WORKER_BASE_IMAGE: testBaseImage(),
    NEXUS_AGENT_COMMAND: FIXTURE_COMMAND,
  });
  const name = `e2e-${randomBytes(3).toString('hex')}`;
  const rpc = nexus.rpc;

  try {
    await rpc('workspaces.create', { name, repoUrl: repo.url });
    await expect
      .poll(async () => (await rpc<{ status: string }>('workspaces.get', { workspace: name })).status, {
        timeout: 180_000,
      })
      .toBe('running');
    const { containerId } = await rpc<{ containerId: string }>('workspaces.get', { workspace: name });
    installAgentFixture(containerId, scripts.agentFixture);

    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    const prompt = 'fix the "auth" bug; $(touch /tmp/pwned) `id`';
    await sessions.create(name, 'first', prompt);
    await expect(sessions.row('first')).toBeVisible();
    // SessionStart then UserPromptSubmit (the initial message) arrive over NATS from the hooks.
    await expect(sessions.state('first')).toHaveText('Working', { timeout: 30_000 });

    await sessions.open('first');
    await sessions.send('hello from the operator');
    await expect(sessions.pane()).toContainText('inbox delivered', { timeout: 15_000 });

    const list = await rpc<{ sessions: { id: string; name: string }[] }>('sessions.list', { workspace: name });
    const id = list.sessions.find((s) => s.name === 'first')?.id as string;
    fireHook(containerId, id, 'Notification', {
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use Bash',
    });
    await expect(sessions.state('first')).toHaveText('Permission needed', { timeout: 15_000 });
    await page.screenshot({ path: test.info().outputPath('session-needs-permission.png') });

    // Platform tools: the fixture calls memory_propose the way the CLI would, through the nexus-mcp
    // its --mcp-config names (the worker image's bridge, as uid 1000); the memory waits for review.
    await callPlatformTool(containerId, id, 'memory_propose', {
      content: 'Run the e2e suite before merging',
      scope: 'project',
    });
    const review = await rpc<{ memories: { content: string; scope: string }[] }>('review.list', {});
    expect(review.memories).toContainEqual(
      expect.objectContaining({ content: 'Run the e2e suite before merging', scope: 'project' }),
    );

    const records = fixtureRecords(containerId, id);
    expect(records.find((r) => r.kind === 'launch')?.parsed?.prompt).toBe(prompt);
    expect(records.filter((r) => r.kind === 'message').map((r) => r.content)).toEqual(['hello from the operator']);
  } finally {
    removeWorkspaceContainers(name);
    await nexus.stop();
    await repo.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
