import { execFileSync } from 'node:child_process';
import { fireHook, fixtureRecords } from '../test/helpers/agent-fixture';
import { startFixtureAgentNexus } from './fixtures/fixture-agent-nexus';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionReview } from './pages/session-review';
import { SessionsPage } from './pages/sessions-page';

/**
 * Review that talks back from the UI (issue #43 items 1–4), with the fixture agent (its turn ends are
 * Stop hooks fired on order; docker, git, NATS and the UI are real): comments on diff lines sent as one
 * message, the turns with their checkpoints and a restore, the conflict radar between two sessions, and one
 * prompt tried three ways, one kept.
 */
test('review comments, turns with restore, the conflict radar and attempts on the sessions page', async ({ page }) => {
  test.setTimeout(900_000);
  const world = await startFixtureAgentNexus('talk', null);
  const { nexus, name } = world;
  // A poll may meet the server closing an idle keep-alive connection as it asks ("other side closed"): that read
  // is asked again, any other failure fails the test.
  const rpc = <T>(op: string, input: unknown): Promise<T> =>
    nexus.rpc<T>(op, input).catch((e: unknown) => {
      if (e instanceof TypeError && /fetch failed/.test(e.message)) return nexus.rpc<T>(op, input);
      throw e;
    });
  try {
    const containerId = await world.runningWorkspace();
    const wt = (s: string) => `/workspace/.nexus-worktrees/${s}`;
    const sh = (dir: string, script: string) =>
      execFileSync('docker', ['exec', '-w', dir, containerId, 'sh', '-c', `set -e; ${script}`], { encoding: 'utf8' });
    for (const s of ['feature', 'other']) await rpc('sessions.create', { workspace: name, name: s });
    const ids: Record<string, string> = {};
    for (const s of ['feature', 'other'])
      await expect
        .poll(
          async () => {
            const got = await rpc<{ id: string; status: string }>('sessions.get', { session: `${name}/${s}` });
            ids[s] = got.id;
            return got.status;
          },
          { timeout: 120_000 },
        )
        .toBe('running');
    const turnEnds = async (s: string, n: number) => {
      fireHook(containerId, ids[s] as string, 'Stop', {});
      await expect
        .poll(
          async () =>
            (await rpc<{ checkpoints: unknown[] }>('checkpoints.list', { session: ids[s] })).checkpoints.length,
          {
            timeout: 30_000,
          },
        )
        .toBe(n);
    };
    // Two turns of the agent: the first writes app.js, the second changes it.
    sh(wt('feature'), `printf 'const a = 1;\\nvar b = 2;\\nconst c = 3;\\nvar d = 4;\\n' > app.js`);
    await turnEnds('feature', 1);
    sh(wt('feature'), `printf 'const a = 1;\\nvar b = 2;\\nconst c = 30;\\nvar d = 4;\\nvar e = 5;\\n' > app.js`);
    await turnEnds('feature', 2);

    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    await sessions.open('feature');
    const review = new SessionReview(page);

    // 1. Comments on diff lines, sent as one message through the inbox.
    await expect(page.getByTestId('changes-diff')).toContainText('var e = 5;');
    await review.comment('app.js', 2, 2, 'Use const here.');
    await review.comment('app.js', 4, 5, 'These too.');
    await page.screenshot({ path: test.info().outputPath('review-comments-drafts.png') });
    await review.sendReview();
    await expect(review.comments().getByTestId('review-comment')).toHaveCount(2);
    await expect(review.comments().locator('[data-status="sent"]')).toHaveCount(2);
    const messages = fixtureRecords(containerId, ids.feature as string).filter((r) => r.kind === 'message');
    expect(messages).toHaveLength(1);
    expect(messages[0]?.content).toContain('1. app.js, line 2:\n```\nvar b = 2;\n```\nUse const here.');
    expect(messages[0]?.content).toContain('2. app.js, lines 4-5:\n```\nvar d = 4;\nvar e = 5;\n```\nThese too.');
    // The agent's next turn changes line 2: that thread says so, the other that its lines stayed.
    sh(wt('feature'), `sed -i 's/^var b = 2;$/const b = 2;/' app.js`);
    await turnEnds('feature', 3);
    await expect(review.comments().getByText('its lines changed')).toHaveCount(1);
    await expect(review.comments().getByText('its lines did not change')).toHaveCount(1);
    await page.screenshot({ path: test.info().outputPath('review-comments-sent.png') });

    // 2. The turns, each with its diff; restoring turn 1 checkpoints first and tells the agent.
    await expect(review.turns().getByTestId('turn')).toHaveCount(3);
    await review.turn(2).getByRole('button', { name: 'Turn 2' }).click();
    await expect(review.turn(2).getByTestId('turn-diff')).toContainText('const c = 30;');
    await page.screenshot({ path: test.info().outputPath('review-turns.png') });
    await review.restore(1);
    await expect(review.turns().getByTestId('turn')).toHaveCount(4);
    await expect(review.turn(4)).toContainText('Before restoring checkpoint 1');
    expect(sh(wt('feature'), 'cat app.js')).toBe('const a = 1;\nvar b = 2;\nconst c = 3;\nvar d = 4;\n');
    const told = fixtureRecords(containerId, ids.feature as string).filter((r) => r.kind === 'message');
    expect(told.at(-1)?.content).toContain("restored this worktree's files to checkpoint 1");
    await page.screenshot({ path: test.info().outputPath('review-restored.png') });

    // 4. The radar: both sessions commit the same line; each shows the conflict; landing one is refused.
    sh(wt('feature'), `git config user.email a@x; git config user.name A; git add -A; git commit -qm feature`);
    sh(
      wt('other'),
      `git config user.email a@x; git config user.name A; printf 'const a = 1;\\nlet b = 2;\\n' > app.js; git add -A; git commit -qm other`,
    );
    const conflict = review.radar().getByTestId('radar-conflict');
    await expect(conflict).toContainText('nexus/other', { timeout: 10_000 });
    await expect(conflict).toContainText('app.js');
    await page.screenshot({ path: test.info().outputPath('review-radar.png') });
    await sessions.open('other');
    await expect(review.radar().getByTestId('radar-conflict')).toContainText('nexus/feature');
    await review
      .radar()
      .getByRole('button', { name: /^Land on main/ })
      .click();
    await expect(page.getByTestId('land-result')).toContainText('Landed on main');
    await sessions.open('feature');
    // Still beside the other session's live branch, and now against the base that holds its change.
    await expect(review.radar().getByTestId('radar-conflict').filter({ hasText: 'the base (main)' })).toContainText(
      'app.js',
      { timeout: 10_000 },
    );
    await review
      .radar()
      .getByRole('button', { name: /^Land on main/ })
      .click();
    await expect(review.radar()).toContainText('would conflict in: app.js');
    await page.screenshot({ path: test.info().outputPath('review-radar-land.png') });

    // 3. Try it N ways: one prompt as three attempts, compared side by side; keep one, the others go.
    await review.tryItNWays('try', 'make it faster', 3);
    const group = review.attemptGroup('try');
    await expect(group.locator('thead th')).toHaveCount(4);
    await expect(group.getByTestId('attempt-changes')).toHaveCount(3);
    await expect
      .poll(
        async () =>
          (
            await rpc<{ sessions: { name: string; status: string }[] }>('sessions.list', { workspace: name })
          ).sessions.filter((s) => s.name.startsWith('try-') && s.status === 'running').length,
        { timeout: 120_000 },
      )
      .toBe(3);
    await expect(group).toContainText('running', { timeout: 30_000 });
    await expect(group.getByTestId('attempt-changes').first()).toContainText('0 files', { timeout: 30_000 });
    await page.screenshot({ path: test.info().outputPath('attempts-compare.png') });
    await review.keep('try', 2);
    await expect(sessions.row('try-2')).toBeVisible();
    await expect(sessions.row('try-1')).toHaveCount(0, { timeout: 30_000 });
    await expect(sessions.row('try-3')).toHaveCount(0);
    await expect(group).toContainText('kept try-2');
    expect(sh('/workspace', "git for-each-ref --format='%(refname:short)' 'refs/heads/nexus/try-*'")).toBe(
      'nexus/try-1\nnexus/try-2\nnexus/try-3\n',
    );
    await page.screenshot({ path: test.info().outputPath('attempts-kept.png') });
  } finally {
    await world.close();
  }
});
