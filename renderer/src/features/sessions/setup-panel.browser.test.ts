import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSetupView } from '../../../../shared/contract/session-setup';
import type { Session } from '../../../../shared/contract/sessions';
import { RendererPages } from '../../../../test/helpers/renderer-page';

// The session page's Setup and run panel as the operator meets it: the real renderer in Chromium against the
// contract stand-in (test/helpers/renderer-page.ts); what is asserted is what shows and what gets sent.
const at = '2026-12-05T21:00:00.000Z';
const session: Session = {
  id: 's1',
  workspaceId: 'w1',
  workspaceName: 'api',
  name: 'fix-login',
  branch: 'nexus/fix-login',
  agent: 'claude',
  status: 'error',
  reason:
    'Setup failed (exit 4): setup: .env.local says no. The agent was not started; retry or skip the setup on the session page.',
  agentState: 'starting',
  agentStateAt: null,
  agentMessage: null,
  taskId: null,
  toolsReason: null,
  createdAt: at,
  updatedAt: at,
};
const failed: SessionSetupView = {
  sessionId: 's1',
  recipeFile: '.devcontainer/devcontainer.json',
  setup: {
    command: 'npm ci',
    state: 'failed',
    exitCode: 4,
    output: 'setting up on 20000\nsetup: .env.local says no\n',
  },
  run: { command: 'npm run dev', windowId: null, output: null },
  ports: { first: 20000, last: 20009 },
};

let pages: RendererPages;
beforeAll(async () => {
  pages = await RendererPages.launch();
});
afterAll(async () => {
  await pages?.close();
});

describe('the session page’s setup and run', () => {
  it('shows a failed setup with its output and ports; Retry and Run send their operations', async () => {
    const p = await pages.open('#/sessions/s1', {
      answers: {
        'sessions.list': { sessions: [session] },
        'sessions.setup': failed,
        'sessions.retrySetup': (input) => ({ ...failed, sessionId: (input as { session: string }).session }),
        'sessions.run': (input) => ({ ...failed, sessionId: (input as { session: string }).session }),
      },
    });
    const panel = p.page.getByTestId('session-setup');
    await panel.waitFor();
    await expect
      .poll(() => panel.getByRole('alert').textContent())
      .toContain('Setup failed: the agent was not started (exit 4)');
    expect(await panel.textContent()).toContain('setup: .env.local says no');
    expect(await p.page.getByTestId('session-ports').textContent()).toBe('PORT=20000');
    await p.page.screenshot({ path: 'test-results/setup-panel-failed.png' });

    const running = { ...failed, setup: { ...failed.setup, state: 'running' as const, exitCode: null } };
    p.answer('sessions.setup', running);
    await panel.getByRole('button', { name: 'Retry setup' }).click();
    await expect
      .poll(() => p.callsOf('sessions.retrySetup').map((c) => c.input))
      .toEqual([{ session: 's1', skip: false }]);
    await expect.poll(() => panel.getByTestId('setup-state').getAttribute('data-state')).toBe('running');
    const ran = {
      ...running,
      run: { command: 'npm run dev', windowId: '@7', output: 'Nexus: run: npm run dev (PORT=20000)\n' },
    };
    p.answer('sessions.setup', ran);
    await panel.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => p.callsOf('sessions.run').length).toBe(1);
    await expect.poll(() => p.page.getByTestId('run-output').textContent()).toContain('PORT=20000');
    await p.page.screenshot({ path: 'test-results/setup-panel-run.png' });
    p.done();
  }, 60_000);
});
