import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptGroup } from '../../../../shared/contract/attempts';
import type { PreviewScreenshot } from '../../../../shared/contract/previews';
import type { SessionSetupView } from '../../../../shared/contract/session-setup';
import type { Session } from '../../../../shared/contract/sessions';
import { contractSession } from '../../../../test/helpers/contract-session';
import { RendererPages } from '../../../../test/helpers/renderer-page';

// "Try it N ways" compared on the Sessions page: the real renderer in Chromium against the contract stand-in
// (test/helpers/renderer-page.ts). Beside each attempt's diff stat and turns: its run command's result, its model
// use and estimated cost, its previews' latest screenshot; an attempt whose session is gone shows none of them.
const at = '2026-12-05T21:00:00.000Z';
const session = (id: string, name: string): Session =>
  contractSession({ id, name, workspaceId: 'w1', workspaceName: 'api' });
const changes = {
  base: 'main',
  ahead: 1,
  behind: 0,
  changedFiles: 2,
  additions: 10,
  deletions: 1,
  uncommitted: false,
  unpushed: null,
  at,
};
const attempt = (position: number, s: Session | null) => ({
  position,
  sessionId: `s${position}`,
  name: `try-${position}`,
  branch: `nexus/try-${position}`,
  agent: 'claude' as const,
  session: s,
  changes: s ? changes : null,
  turns: position,
  note: s ? null : 'Deleted (its branch is kept for a week after the group was decided).',
});
const group: AttemptGroup = {
  id: 'g1',
  workspaceId: 'w1',
  name: 'try',
  prompt: 'Make the login page faster',
  keptSessionId: null,
  decidedAt: null,
  createdAt: at,
  attempts: [attempt(1, session('s1', 'try-1')), attempt(2, session('s2', 'try-2')), attempt(3, null)],
};
const setup = (sessionId: string): SessionSetupView => ({
  sessionId,
  recipeFile: '.devcontainer/devcontainer.json',
  setup: { command: null, state: 'none', exitCode: null, output: '' },
  run:
    sessionId === 's1'
      ? { command: 'npm run dev', windowId: '@7', output: 'compiling\nready in 412 ms\nlistening on 20000\n' }
      : { command: 'npm run dev', windowId: null, output: null },
  ports: { first: 20000, last: 20009 },
});
// A 1×1 JPEG: what the previews module keeps is a data URL of one.
const JPEG =
  'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=';
const shot = (seq: number): PreviewScreenshot => ({ id: `p${seq}`, port: 20000, seq, at, image: JPEG });

let pages: RendererPages;
beforeAll(async () => {
  pages = await RendererPages.launch();
});
afterAll(async () => {
  await pages?.close();
});

describe('attempts compared', () => {
  it('shows each attempt’s run result, cost and latest screenshot beside its changes', async () => {
    const p = await pages.open('#/sessions', {
      answers: {
        'sessions.list': { sessions: [session('s1', 'try-1'), session('s2', 'try-2')] },
        'attempts.list': { groups: [group] },
        'usage.sessions': {
          sessions: [
            {
              sessionId: 's1',
              totals: { requests: 4, input: 120_000, output: 3_000, cacheWrite: 0, cacheRead: 0, total: 123_000 },
              estimate: { usd: 0.42, unpricedModels: [], unpricedTokens: 0 },
            },
          ],
        },
        'sessions.setup': (input) => setup((input as { session: string }).session),
        'previews.screenshots': (input) => {
          const id = (input as { session: string }).session;
          return { sessionId: id, screenshots: id === 's1' ? [shot(2), shot(1)] : [] };
        },
      },
    });
    const g = p.page.locator('[data-testid="attempt-group"][data-group="try"]');
    const cells = (row: string) => g.getByTestId(`attempt-row-${row}`).locator('td');
    await expect
      .poll(() => cells('run').allTextContents())
      .toEqual(['compiling\nready in 412 ms\nlistening on 20000', 'Not started', '']);
    await expect.poll(() => cells('cost').allTextContents()).toEqual(['123k tok · ≈$0.42', 'No model use yet', '']);
    await expect.poll(() => cells('screenshot').nth(0).getByTestId('preview-shot').getAttribute('data-seq')).toBe('2');
    expect(await cells('screenshot').nth(1).textContent()).toBe('No screenshot');
    // A deleted attempt's session is gone: nothing is asked for it.
    for (const op of ['sessions.setup', 'previews.screenshots'] as const)
      expect(p.callsOf(op).map((c) => (c.input as { session: string }).session)).not.toContain('s3');
    await g.screenshot({ path: 'test-results/attempts-compare-facts.png' });
    p.done();
  }, 60_000);
});
