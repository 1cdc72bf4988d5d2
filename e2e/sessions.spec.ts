import { callPlatformTool, fireHook, fixtureRecords } from '../test/helpers/agent-fixture';
import { startFixtureAgentNexus } from './fixtures/fixture-agent-nexus';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';

test('creates a session with an initial message, sends a message, and sees the state change after a hook event', async ({
  page,
}) => {
  test.setTimeout(900_000);
  // The agent is the fixture (the real CLI needs a model); docker, git, tmux, NATS and the UI are real.
  const world = await startFixtureAgentNexus('e2e', null);
  const { nexus, name } = world;
  const rpc = nexus.rpc;

  try {
    const containerId = await world.runningWorkspace();

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
    await world.close();
  }
});
