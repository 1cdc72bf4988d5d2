import { execFileSync } from 'node:child_process';
import type { Request } from '@playwright/test';
import { fireHook } from '../test/helpers/agent-fixture';
import { PREVIEW_APP } from '../test/helpers/preview-app';
import { startFixtureAgentNexus } from './fixtures/fixture-agent-nexus';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionPreviews } from './pages/session-previews';
import { SessionsPage } from './pages/sessions-page';

/**
 * Live previews (issue 42 items 3 and 4), with the fixture agent (its turn ends are Stop hooks fired on order;
 * docker, the proxy, Chromium and the UI are real): a dev server started in the session's worktree shows in the
 * session view as a link to its own origin; that page gets its hot-reload WebSocket message, and its script
 * cannot reach Nexus's /api/rpc nor see Nexus's cookie; each turn end leaves a screenshot in the turns' review.
 */
test('a preview at its own origin: hot reload, no way into Nexus, screenshots before / after a turn', async ({
  page,
}) => {
  test.setTimeout(600_000);
  const world = await startFixtureAgentNexus('preview', null);
  const { nexus, name } = world;
  try {
    const containerId = await world.runningWorkspace();
    const session = await nexus.rpc<{ id: string }>('sessions.create', { workspace: name, name: 'web' });
    await expect
      .poll(async () => (await nexus.rpc<{ status: string }>('sessions.get', { session: session.id })).status, {
        timeout: 120_000,
      })
      .toBe('running');
    // The session's dev server, started in its worktree as the agent would (`npm run dev`).
    execFileSync('docker', [
      'exec',
      '-d',
      '-e',
      `APP=${PREVIEW_APP}`,
      '-w',
      '/workspace/.nexus-worktrees/web',
      containerId,
      'sh',
      '-c',
      'exec node -e "$APP" 5173',
    ]);
    const nexusPort = new URL(nexus.url).port;
    const url = `http://5173-web.${name}.localhost:${nexusPort}/`;
    await expect
      .poll(
        async () =>
          (await nexus.rpc<{ previews: { url: string }[] }>('previews.list', { session: session.id })).previews.map(
            (p) => p.url,
          ),
        {
          timeout: 30_000,
        },
      )
      .toEqual([url]);

    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Sessions');
    await new SessionsPage(page).open('web');
    const previews = new SessionPreviews(page);
    await expect(previews.link(5173)).toHaveAttribute('href', url);
    await expect(previews.link(5173)).toHaveAttribute('target', '_blank');

    // The preview in its own tab, at its own origin: the page, its hot-reload message, and its tries at Nexus.
    const [preview] = await Promise.all([page.context().waitForEvent('page'), previews.link(5173).click()]);
    const toNexus: Request[] = [];
    preview.on('request', (r) => {
      if (r.url().startsWith(`http://127.0.0.1:${nexusPort}/`)) toNexus.push(r);
    });
    await preview.reload();
    expect(new URL(preview.url()).origin).toBe(new URL(url).origin);
    await expect(preview.getByRole('heading', { name: 'The previewed app' })).toBeVisible();
    await expect(preview.locator('#hot')).toHaveText('hot: reload');
    await expect(preview.locator('#api')).toHaveText(/^api: blocked TypeError$/);
    await expect(preview.locator('#own')).toHaveText(/^own: 404 the app has no \/api\/rpc\/app\.info \(cookie: \)$/);
    await expect(preview.locator('#cookie')).toHaveText('cookie: []');
    // Whatever reached the UI's origin (the call, or its CORS preflight) carried no cookie and got no answer the
    // page could use: the UI's guard refuses the preview's Origin.
    expect(toNexus.length).toBeGreaterThan(0);
    for (const r of toNexus) {
      expect((await r.allHeaders()).cookie).toBeUndefined();
      expect((await r.response())?.status() ?? 0).not.toBe(200);
    }
    expect(await page.context().cookies(url)).toEqual([]);
    expect((await page.context().cookies(nexus.url)).map((c) => c.name)).toEqual(['nexus_session']);
    await preview.screenshot({ path: test.info().outputPath('preview-page.png') });
    await preview.close();

    // Two turn ends: a screenshot at each, shown before / after beside the turns' diffs.
    fireHook(containerId, session.id, 'Stop', {});
    await expect(previews.beforeAfter().getByTestId('preview-shot')).toHaveCount(1, { timeout: 60_000 });
    fireHook(containerId, session.id, 'Stop', {});
    await expect(previews.beforeAfter().getByTestId('preview-shot')).toHaveCount(2, { timeout: 60_000 });
    await expect(previews.beforeAfter().getByText(/^Before/)).toBeVisible();
    await expect(previews.beforeAfter().getByText(/^After/)).toBeVisible();
    await expect(previews.panel().getByTestId('preview-shot')).toHaveAttribute('data-seq', '2');
    await page.screenshot({ path: test.info().outputPath('preview-screenshots.png'), fullPage: true });
  } finally {
    await world.close();
  }
});
