import type { Page } from '@playwright/test';
import { deriveAttention, rollUp } from '../shared/attention';
import type { Session } from '../shared/contract/sessions';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { SessionsPage } from './pages/sessions-page';

/**
 * The Sessions split view against a real `nexus serve`. The fleet is pinned in the browser (the
 * answers to sessions.list and attention.get, as the UI bench does): the list, its URL, filters and
 * keyboard are what is under test here, and six sessions in four states need no containers.
 */
const now = new Date().toISOString();
const session = (
  workspaceName: string,
  name: string,
  agentState: Session['agentState'],
  status: Session['status'] = 'running',
  agentMessage: string | null = null,
): Session => ({
  id: `id-${name}`,
  workspaceId: `ws-${workspaceName}`,
  workspaceName,
  name,
  branch: `nexus/${name}`,
  agent: 'claude',
  status,
  reason: null,
  taskId: null,
  toolsReason: null,
  agentState,
  agentStateAt: now,
  agentMessage,
  createdAt: now,
  updatedAt: now,
});
const HELD = 'A message from another session needs your approval';
const fleet = [
  session('api', 'fix-auth', 'waiting_permission', 'running', 'Claude needs your permission to use Bash'),
  session('api', 'docs', 'working'),
  session('api', 'helper', 'waiting_permission', 'running', HELD),
  session('web', 'cleanup', 'idle'),
  session('web', 'landing', 'working'),
  session('web', 'old', 'idle', 'exited'),
];
const attention = rollUp(
  fleet.map((s) =>
    deriveAttention({
      session: s,
      health: { agentState: s.agentState, at: s.agentStateAt, message: s.agentMessage },
      workspaceRunning: true,
    }),
  ),
  { memories: 0, skills: 0 },
);

async function pinFleet(page: Page): Promise<void> {
  await page.route('**/api/rpc/sessions.list', (r) => r.fulfill({ json: { result: { sessions: fleet } } }));
  await page.route('**/api/rpc/attention.get', (r) => r.fulfill({ json: { result: attention } }));
}

const hashOf = (page: Page): Promise<string> => page.evaluate(() => window.location.hash);

test('the Sessions page shows the list beside the selected session, one URL each, filtered and moved through by keyboard', async ({
  page,
  nexus,
}) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await pinFleet(page);
  const app = new AppPage(page);
  await app.open(nexus.loginUrl);
  await app.goTo('Sessions');
  const sessions = new SessionsPage(page);
  await expect.poll(() => sessions.names()).toEqual(['fix-auth', 'docs', 'helper', 'cleanup', 'landing', 'old']);

  // Nothing selected: the first option is the list's tab stop, and the keyboard moves on from it.
  await expect(page.getByText('No session selected')).toBeVisible();
  await expect(sessions.row('fix-auth')).toHaveAttribute('tabindex', '0');
  await sessions.row('fix-auth').focus();
  await page.keyboard.press('Enter');
  await expect(sessions.detail('fix-auth')).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await expect(sessions.detail('docs')).toBeVisible();

  // Select: the detail opens beside the list, its terminal in view, and the URL names the session.
  await sessions.open('docs');
  await expect(sessions.row('docs')).toHaveAttribute('aria-selected', 'true');
  expect(await hashOf(page)).toBe('#/sessions/id-docs');
  const list = await sessions.list().boundingBox();
  const detail = await sessions.detail('docs').boundingBox();
  expect(list && detail && detail.x >= list.x + list.width).toBe(true);
  expect(detail && Math.abs(detail.y - (list?.y ?? 0)) < 120).toBe(true);
  await expect(sessions.terminal()).toBeInViewport();
  await page.screenshot({ path: test.info().outputPath('sessions-split.png') });

  // The URL opens the same session again after a reload.
  await page.reload();
  await expect(sessions.detail('docs')).toBeVisible();
  await expect(sessions.row('docs')).toHaveAttribute('aria-selected', 'true');

  // Keyboard: the selected option is the one in the tab order; ↓/j and ↑/k move, Home and End jump.
  await sessions.row('docs').focus();
  await page.keyboard.press('ArrowDown');
  await expect(sessions.row('helper')).toBeFocused();
  await expect(sessions.row('helper')).toHaveAttribute('aria-selected', 'true');
  await expect(sessions.row('docs')).toHaveAttribute('aria-selected', 'false');
  await expect(sessions.detail('helper')).toBeVisible();
  expect(await hashOf(page)).toBe('#/sessions/id-helper');
  await page.keyboard.press('j');
  await expect(sessions.row('cleanup')).toBeFocused();
  await page.keyboard.press('k');
  await page.keyboard.press('ArrowUp');
  await expect(sessions.row('docs')).toBeFocused();
  await page.keyboard.press('End');
  await expect(sessions.row('old')).toBeFocused();
  await expect(sessions.detail('old')).toBeVisible();
  await page.keyboard.press('Home');
  await expect(sessions.row('fix-auth')).toBeFocused();
  await expect(sessions.list().locator('[role="option"][tabindex="0"]')).toHaveCount(1);
  // The focus is visible.
  expect(await sessions.row('fix-auth').evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');

  // Filters, in the Overview's words, and a name search.
  await sessions.filter('Needs you');
  await expect.poll(() => sessions.names()).toEqual(['fix-auth', 'helper']);
  // A held message reads the same here as on the Overview.
  await expect(sessions.row('helper')).toContainText(HELD);
  await sessions.filter('Working');
  await expect.poll(() => sessions.names()).toEqual(['docs', 'landing']);
  await sessions.filter('Idle');
  await expect.poll(() => sessions.names()).toEqual(['cleanup']);
  await sessions.filter('Offline');
  await expect.poll(() => sessions.names()).toEqual(['old']);
  await sessions.filter('All');
  await sessions.search('LAND');
  await expect.poll(() => sessions.names()).toEqual(['landing']);
  await sessions.search('nothing-like-this');
  await expect(page.getByTestId('no-match')).toBeVisible();
  await sessions.search('');
  await expect.poll(() => sessions.names()).toHaveLength(6);

  // The Overview's Needs-you items open the session in this view, with the same reason as its row.
  await app.goTo('Overview');
  const item = page.getByTestId('needs-you-list').locator('li[data-session-id="id-helper"]');
  await expect(item).toContainText(HELD);
  await item.getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Sessions' })).toBeVisible();
  await expect(sessions.detail('helper')).toBeVisible();
  await expect(sessions.row('helper')).toHaveAttribute('aria-selected', 'true');
  expect(await hashOf(page)).toBe('#/sessions/id-helper');

  // Coming back to Sessions from another page reopens the session selected last.
  await app.goTo('Workspaces');
  await app.goTo('Sessions');
  await expect(sessions.detail('helper')).toBeVisible();
  expect(await hashOf(page)).toBe('#/sessions/id-helper');

  // A narrow window stacks them: the selected session below the list.
  await page.setViewportSize({ width: 820, height: 900 });
  const narrowList = await sessions.list().boundingBox();
  const narrowDetail = await sessions.detail('helper').boundingBox();
  expect(narrowList && narrowDetail && narrowDetail.y >= narrowList.y + narrowList.height).toBe(true);
});
