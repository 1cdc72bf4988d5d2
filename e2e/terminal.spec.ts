import { execFileSync } from 'node:child_process';
import { startFixtureWorkspace } from './fixtures/fixture-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';

test('the session page shows a live terminal: a typed line reaches the pane and is echoed; it reconnects after a drop', async ({
  page,
}, testInfo) => {
  test.setTimeout(900_000);
  const { nexus, name, containerId, stop } = await startFixtureWorkspace();
  const rpc = nexus.rpc;
  try {
    await rpc('sessions.create', { workspace: name, name: 'live' });
    await expect
      .poll(async () => (await rpc<{ status: string }>('sessions.get', { session: `${name}/live` })).status, {
        timeout: 60_000,
      })
      .toBe('running');

    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    await sessions.open('live');
    await expect(page.getByTestId('terminal-state')).toHaveText('Live', { timeout: 30_000 });
    const screen = page.getByTestId('session-terminal').locator('.xterm-rows');
    await expect(screen).toContainText('(fixture) agent session', { timeout: 15_000 });

    await page.getByTestId('session-terminal').click();
    await page.keyboard.type('hello from xterm');
    await expect(screen).toContainText('hello from xterm');
    const pane = (): string =>
      execFileSync('docker', ['exec', containerId, 'tmux', 'capture-pane', '-p', '-J', '-t', '=nexus:live'], {
        encoding: 'utf8',
      });
    await expect.poll(pane).toContain('hello from xterm');
    const shot = testInfo.outputPath('session-page-terminal.png');
    await page.screenshot({ path: shot });
    await testInfo.attach('session-page-terminal', { path: shot, contentType: 'image/png' });

    // A drop (here the viewer's tmux client ended from outside): the page says so and reconnects.
    const viewers = (): string[] =>
      execFileSync('docker', ['exec', containerId, 'tmux', 'list-sessions', '-F', '#{session_name}'], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter((n) => n.startsWith('nexus-view-'));
    const [viewer] = viewers();
    execFileSync('docker', ['exec', containerId, 'tmux', 'kill-session', '-t', `=${viewer}`]);
    await expect(page.getByTestId('terminal-state')).toContainText('Disconnected');
    await expect(page.getByTestId('terminal-state')).toHaveText('Live', { timeout: 30_000 });
    await expect(screen).toContainText('hello from xterm');
    await page.getByTestId('session-terminal').click();
    await page.keyboard.type(' and again');
    await expect(screen).toContainText('hello from xterm and again');

    // Leaving the page closes the socket: the viewer detaches, the agent's window lives on.
    await page.goto('about:blank');
    await expect.poll(viewers, { timeout: 15_000 }).toEqual([]);
    expect(pane()).toContain('hello from xterm');
  } finally {
    await stop();
  }
});
