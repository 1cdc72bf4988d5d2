import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import AxeBuilder from '@axe-core/playwright';
import type { AgentKindInfo } from '../../../../shared/contract/agent-kind';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import type { Session } from '../../../../shared/contract/sessions';
import type { Transcript, TranscriptItem } from '../../../../shared/contract/transcript';
import { RendererPages, type RendererPage } from '../../../../test/helpers/renderer-page';

// The structured view as an operator meets it: the real renderer in Chromium, its host a stand-in that answers the
// contract's operations (test/helpers/renderer-page.ts), so what is asserted is what shows and what gets sent.

const at = '2026-12-05T21:00:00.000Z';
const kind = (k: string, label: string, structured: boolean): AgentKindInfo => ({
  kind: k,
  label,
  cli: { package: `${k}-cli`, version: '1.0.0', source: 'installed' },
  credentialKinds: [],
  defaultCredentialId: null,
  baseUrl: null,
  capabilities: { unansweredPermission: 'denied', messageReceipts: false, structured },
});
const agentSettings = {
  kinds: [kind('classic', 'Classic CLI', false), kind('acpish', 'ACP Agent', true)],
  credentials: [],
  permissionMode: 'default',
  permissionModeReason: 'the workspace asks',
};
const session = (over: Partial<Session> = {}): Session => ({
  id: 's1',
  workspaceId: 'w1',
  workspaceName: 'api',
  name: 'fix-login',
  branch: 'nexus/fix-login',
  agent: 'acpish',
  status: 'running',
  reason: null,
  agentState: 'working',
  agentStateAt: at,
  agentMessage: null,
  taskId: null,
  toolsReason: null,
  createdAt: at,
  updatedAt: at,
  ...over,
});
const request: PermissionRequest = {
  id: 'req-7',
  sessionId: 's1',
  workspaceId: 'w1',
  toolName: 'Shell',
  agent: 'acpish',
  unanswered: 'denied',
  toolInput: { command: 'rm -rf build' },
  askedAt: at,
  expiresAt: '2026-12-05T21:05:00.000Z',
  askedBy: null,
};
const items: TranscriptItem[] = [
  { type: 'user', id: 'u1', text: 'Fix the login form', at },
  { type: 'thought', id: 'th1', text: 'The form posts to the wrong route', at },
  {
    type: 'plan',
    id: 'p1',
    at,
    entries: [
      { content: 'Read the form', status: 'completed', priority: 'medium' },
      { content: 'Change the route', status: 'in_progress', priority: 'high' },
      { content: 'Run the tests', status: 'pending', priority: 'low' },
    ],
  },
  {
    type: 'tool',
    id: 't1',
    title: 'Reading login.tsx',
    kind: 'read',
    status: 'completed',
    locations: ['src/login.tsx'],
    input: { path: 'src/login.tsx' },
    output: 'export function Login() {}\n',
    at,
  },
  {
    type: 'tool',
    id: 't2',
    title: 'npm test',
    kind: 'execute',
    status: 'failed',
    locations: [],
    input: { command: 'npm test' },
    output: '1 failing\nexpected 200',
    at,
  },
  {
    type: 'tool',
    id: 't3',
    title: '',
    kind: 'edit',
    status: 'in_progress',
    locations: ['src/routes.ts', 'src/routes.ts'],
    input: null,
    output: '',
    at,
  },
  { type: 'permission', id: 'pm0', requestId: null, title: 'git push', outcome: 'denied', at },
  { type: 'agent', id: 'a1', text: 'The route is fixed; one test still fails.', at },
  { type: 'turn_end', id: 'e1', stopReason: 'end_turn', at },
  { type: 'notice', id: 'n1', text: 'The agent exited; Nexus started it again.', at },
];
const transcript = (list: TranscriptItem[], structured = true): Transcript => ({
  sessionId: 's1',
  structured,
  items: list,
  agentUsage: { inputTokens: 1200, outputTokens: 340, contextUsed: null },
});

let pages: RendererPages;
beforeAll(async () => {
  pages = await RendererPages.launch();
});
afterAll(async () => {
  await pages?.close();
});

async function sessionPage(
  s: Session,
  t: Transcript,
  requests: PermissionRequest[] = [],
  phone = false,
): Promise<RendererPage> {
  return pages.open(`#/sessions/${s.id}`, {
    phone,
    answers: {
      'agent.get': agentSettings,
      'sessions.list': { sessions: [s] },
      'sessions.transcript': t,
      'permissions.list': { requests },
      'permissions.decide': (input) => ({ request: { ...request, id: (input as { id: string }).id } }),
      'sessions.cancelTurn': { cancelled: true, note: 'The agent was told to stop.' },
    },
  });
}

const pendingPermission: TranscriptItem = {
  type: 'permission',
  id: 'pm1',
  requestId: 'req-7',
  title: 'rm -rf build',
  outcome: 'pending',
  at,
};

describe('the structured view of a session whose kind reports structured updates', { timeout: 60_000 }, () => {
  it('shows each item as the operator reads it, every status in words', async () => {
    const r = await sessionPage(session(), transcript(items));
    const { page } = r;
    const view = page.getByTestId('structured-view');
    await view.getByText('Fix the login form').waitFor();
    expect(await page.getByTestId('transcript-user').textContent()).toContain('You');
    expect(await page.getByTestId('transcript-agent').textContent()).toContain('ACP Agent');
    // A thought is folded away until opened.
    const thought = page.getByTestId('transcript-thought');
    expect(await thought.getByText('The form posts to the wrong route').isVisible()).toBe(false);
    await thought.getByText('ACP Agent thought').click();
    expect(await thought.getByText('The form posts to the wrong route').isVisible()).toBe(true);
    // The plan: a checklist whose statuses are words, not only marks or colours.
    expect(await page.getByRole('region', { name: 'Plan' }).textContent()).toContain('1 of 3 done');
    expect(await page.getByTestId('plan-entry').allTextContents()).toEqual([
      '☑ Read the form (done)',
      '◐ Change the route (in progress, high priority)',
      '☐ Run the tests (to do)',
    ]);
    // Tool calls as cards: kind, title, status, files, output folded.
    const read = page.getByRole('article', { name: 'Tool call: Reading login.tsx' });
    expect(await read.textContent()).toMatch(/Read.*Reading login\.tsx.*Done/);
    expect(await read.getByRole('list', { name: 'Files' }).textContent()).toBe('src/login.tsx');
    const run = page.getByRole('article', { name: 'Tool call: npm test' });
    expect(await run.getByTestId('tool-status').textContent()).toBe('Failed');
    expect(await run.getByTestId('tool-output').isVisible()).toBe(false);
    await run.getByText('Output (2 lines)').click();
    expect(await run.getByTestId('tool-output').textContent()).toBe('1 failing\nexpected 200');
    // A call whose title has not come yet is named by its kind.
    const edit = page.getByRole('article', { name: 'Tool call: Edit' });
    expect(await edit.getByTestId('tool-status').textContent()).toBe('Running');
    expect(await edit.getByRole('listitem').allTextContents()).toEqual(['src/routes.ts', 'src/routes.ts']);
    // An answered permission says how; the turn end and the notice read as sentences.
    expect(await page.getByRole('region', { name: 'Permission: git push' }).textContent()).toContain('Denied');
    expect(await page.getByTestId('transcript-turn-end').textContent()).toContain('Turn ended');
    expect(await page.getByTestId('transcript-notice').textContent()).toBe('The agent exited; Nexus started it again.');
    expect(await page.getByTestId('agent-usage').textContent()).toContain('1,200 tokens in, 340 out');
    // Labelled controls, readable contrast (axe, WCAG 2.1 AA, as e2e/a11y.spec.ts checks whole pages).
    const axe = await new AxeBuilder({ page })
      .include('[data-testid="structured-view"]')
      .include('[role="tablist"]')
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    r.done();
  });

  it('answers a pending permission on its item: Allow once sends permissions.decide with its request id', async () => {
    const r = await sessionPage(
      session({ agentState: 'waiting_permission' }),
      transcript([...items, pendingPermission]),
      [request],
    );
    const item = r.page.getByRole('region', { name: 'Permission: rm -rf build' });
    await item.getByRole('button', { name: 'Allow once' }).waitFor();
    expect(await item.getByTestId('permission-outcome').textContent()).toBe('Waiting for your answer');
    // The request shows once: on its item, not again above the view.
    expect(await r.page.getByTestId('permission-request').count()).toBe(1);
    await item.getByRole('button', { name: 'Allow once' }).click();
    await expect
      .poll(() => r.callsOf('permissions.decide').map((c) => c.input))
      .toEqual([{ id: 'req-7', behavior: 'allow' }]);
    r.done();
  });

  it('denies a pending permission with a note from its item', async () => {
    const r = await sessionPage(session({ agentState: 'waiting_permission' }), transcript([pendingPermission]), [
      request,
    ]);
    const item = r.page.getByRole('region', { name: 'Permission: rm -rf build' });
    await item.getByRole('button', { name: 'Deny with a note' }).click();
    await item.getByRole('textbox', { name: 'Note for the agent' }).fill('Keep the build; clean only dist/');
    await item.getByRole('button', { name: 'Send denial' }).click();
    await expect
      .poll(() => r.callsOf('permissions.decide').map((c) => c.input))
      .toEqual([{ id: 'req-7', behavior: 'deny', note: 'Keep the build; clean only dist/' }]);
    r.done();
  });

  it('stops the running turn with Stop turn, which is not offered once the agent is idle', async () => {
    const r = await sessionPage(session(), transcript(items));
    await r.page.getByRole('button', { name: 'Stop turn' }).click();
    await expect.poll(() => r.callsOf('sessions.cancelTurn').map((c) => c.input)).toEqual([{ session: 's1' }]);
    await r.page.getByTestId('stop-result').getByText('The agent was told to stop.', { exact: false }).waitFor();
    r.done();
    const idle = await sessionPage(session({ agentState: 'idle' }), transcript(items));
    await idle.page.getByTestId('transcript-turn-end').waitFor();
    expect(await idle.page.getByRole('button', { name: 'Stop turn' }).count()).toBe(0);
    idle.done();
  });

  it('shows new items on their event and follows them, unless the operator scrolled up to read', async () => {
    const long = (n: number): TranscriptItem[] =>
      Array.from({ length: n }, (_, i) => ({ type: 'agent', id: `a${i}`, text: `Step ${i}\n\nin detail`, at }));
    const r = await sessionPage(session(), transcript(long(40)));
    const box = r.page.getByTestId('transcript');
    await box.getByText('Step 39').waitFor();
    const gap = () => box.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    expect(await gap()).toBeLessThanOrEqual(1);
    r.answer('sessions.transcript', transcript(long(45)));
    r.emit('sessions.transcriptChanged', { sessionId: 's1' });
    await box.getByText('Step 44').waitFor();
    await expect.poll(gap).toBeLessThanOrEqual(1);
    // Scrolled up: the next items come without moving what the operator reads.
    await box.evaluate((el) => el.scrollTo({ top: 0 }));
    await r.page.getByRole('button', { name: 'Jump to the latest' }).waitFor();
    r.answer('sessions.transcript', transcript(long(50)));
    r.emit('sessions.transcriptChanged', { sessionId: 's1' });
    await box.getByText('Step 49').waitFor();
    expect(await box.evaluate((el) => el.scrollTop)).toBe(0);
    await r.page.getByRole('button', { name: 'Jump to the latest' }).click();
    await expect.poll(gap).toBeLessThanOrEqual(1);
    r.done();
  });

  it('keeps the terminal as its second tab, the plain log; a kind without structured updates keeps the terminal', async () => {
    const r = await sessionPage(session({ status: 'exited', agentState: 'exited' }), transcript(items));
    const tabs = r.page.getByRole('tablist', { name: 'Session views' });
    await tabs.getByRole('tab', { name: 'Structured view', selected: true }).waitFor();
    expect(await r.page.getByRole('region', { name: 'Terminal (read-only)' }).count()).toBe(0);
    await tabs.getByRole('tab', { name: 'Plain log' }).click();
    await r.page.getByRole('region', { name: 'Terminal (read-only)' }).waitFor();
    expect(await r.page.getByTestId('structured-view').count()).toBe(0);
    r.done();

    const classic = await sessionPage(session({ agent: 'classic' }), transcript([], false), [request]);
    await classic.page.getByRole('region', { name: 'Terminal', exact: true }).waitFor();
    await classic.page.getByTestId('permission-request').waitFor();
    expect(await classic.page.getByRole('tablist').count()).toBe(0);
    expect(await classic.page.getByTestId('structured-view').count()).toBe(0);
    expect(classic.callsOf('sessions.transcript')).toEqual([]);
    classic.done();
  });
});

describe('the structured view on the phone', { timeout: 60_000 }, () => {
  it('shows the same view (the kind read from the transcript), picks up new items by polling, answers inline', async () => {
    const r = await sessionPage(
      session({ agentState: 'waiting_permission' }),
      transcript([...items, pendingPermission]),
      [request],
      true,
    );
    const view = r.page.getByTestId('structured-view');
    await view.getByText('Fix the login form').waitFor();
    // The phone may not read agent.get: the transcript's own `structured` chose the view.
    expect(r.callsOf('agent.get').length).toBeGreaterThan(0);
    expect(
      await view.getByRole('article', { name: 'Tool call: npm test' }).getByTestId('tool-status').textContent(),
    ).toBe('Failed');
    await view.getByRole('button', { name: 'Stop turn' }).waitFor();
    // No event stream on the public origin: the view polls.
    r.answer(
      'sessions.transcript',
      transcript([...items, pendingPermission, { type: 'agent', id: 'a9', text: 'Waiting on you.', at }]),
    );
    await view.getByText('Waiting on you.').waitFor();
    await view
      .getByRole('region', { name: 'Permission: rm -rf build' })
      .getByRole('button', { name: 'Allow once' })
      .click();
    await expect.poll(() => r.callsOf('permissions.decide')).toHaveLength(1);
    const [decide] = r.callsOf('permissions.decide');
    expect(decide?.input).toEqual({ id: 'req-7', behavior: 'allow' });
    expect(decide?.headers['x-nexus-csrf']).toBe('csrf-of-the-test');
    r.done();
  });
});
