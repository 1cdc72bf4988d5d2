import { randomBytes } from 'node:crypto';
import { userTexts } from '../test/helpers/model-api';
import { natsPasswordOf } from '../test/helpers/nats-users';
import { functionOutputs, userInputTexts, type ResponsesRequest } from '../test/helpers/responses-api';
import { connectRun } from '../test/helpers/run-client';
import { startRealAgentWorkspace } from './fixtures/real-agent-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { PermissionRequests } from './pages/permission-requests';
import { SessionsPage } from './pages/sessions-page';

// A Codex session made from the UI against the real, pinned Codex CLI (0.169.0); the model is the scripted
// Responses-API stand-in. Its shell call is gated in Nexus (PreToolUse under full access): it shows in Needs you,
// the operator allows it, and the command's output reaches the model in the next request.
const ASK = 'Please print the marker for me.';
const TASK = 'Review the Codex marker output';

test('a Codex session created from the New session form: its shell call waits in Needs you, Allow runs it, the output reaches the model; the Board can start Claude Code instead of the default', async ({
  page,
}, testInfo) => {
  test.setTimeout(900_000);
  const w = await startRealAgentWorkspace({}, { codex: true });
  const { nexus, name } = w;
  const api = w.env.codexApi;
  const marker = `codex-said-${randomBytes(4).toString('hex')}`;
  // A shell call for the ask; "Done." once a call's output is the latest input.
  api.onTurn((r: ResponsesRequest) => {
    if (r.body.input?.at(-1)?.type === 'function_call_output') return { text: 'Done.' };
    if (userInputTexts(r.body.input).includes(ASK))
      return { toolUse: { name: 'exec_command', input: { cmd: `echo ${marker}` } } };
    return { text: 'OK.' };
  });
  try {
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);

    // The workspace shows its default agent; the operator makes it Codex in the workspace's Agent dialog.
    await app.goTo('Workspaces');
    const row = page.getByTestId(`workspace-${name}`);
    await expect(row.getByTestId('workspace-agent')).toHaveText('agent: Claude Code');
    await row.getByRole('button', { name: 'Agent', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Agent of ${name}` });
    await dialog.locator('select[name="defaultAgent"]').selectOption({ label: 'Codex' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row.getByTestId('workspace-agent')).toHaveText('agent: Codex');
    await page.screenshot({ path: testInfo.outputPath('codex-workspace-default.png') });

    // The New session form names the workspace's default; the operator picks Codex.
    await app.goTo('Sessions');
    const sessions = new SessionsPage(page);
    const form = await sessions.newSessionForm();
    await form.locator('select[name="workspace"]').selectOption(name);
    await expect(form.locator('select[name="agent"] option').first()).toHaveText('Workspace default (Codex)');
    await sessions.create(name, 'coder', ASK, { agent: 'Codex' });
    await expect(sessions.row('coder').getByTestId('session-agent')).toHaveText('Codex', { timeout: 60_000 });

    // The gated call waits in Needs you on the Overview.
    await app.goTo('Overview');
    const needsYou = page.getByTestId('needs-you-list');
    const perms = new PermissionRequests(page);
    const card = perms.request(`echo ${marker}`, needsYou);
    await expect(card).toBeVisible({ timeout: 300_000 });
    await expect(card).toContainText('Bash');
    // Unanswered, Codex's gate denies the call (fails closed); the card says so.
    await expect(card).toContainText('else it is not run');
    await expect(needsYou).toContainText(`${name} · coder`);
    await page.screenshot({ path: testInfo.outputPath('codex-needs-you.png') });
    expect(api.turns().some((r) => functionOutputs(r).length > 0)).toBe(false);
    await perms.allow(card);
    await expect(card).toHaveCount(0);

    // The command ran: its output is in the model's next request.
    const after = await api.waitForRequest(
      (r) => r.kind === 'turn' && functionOutputs(r).some((o) => String(o.output).includes(marker)),
      120_000,
    );
    expect(userInputTexts(after.body.input)).toEqual([ASK]);

    // The session page names its kind.
    await app.goTo('Sessions');
    await sessions.open('coder');
    await expect(sessions.detail('coder')).toContainText('(Codex)');

    // A task delegated from this workspace: the Board's "Start a session on it" names the workspace's default
    // (Codex) and the operator picks Claude Code instead.
    const { id: workspaceId } = await nexus.rpc<{ id: string }>('workspaces.get', { workspace: name });
    const lead = await nexus.rpc<{ id: string }>('agents.create', { name: 'e2e-codex-lead', project: workspaceId });
    const run = await nexus.rpc<{ runId: string; natsUrl: string; user: string; inboxPrefix: string; subject: string }>(
      'runs.create',
      { agentId: lead.id },
    );

    const client = await connectRun({ ...run, password: natsPasswordOf(nexus.dataDir, run.user) });
    try {
      expect(await client.call('task.delegate', { title: TASK, roleHint: 'tester' })).toHaveProperty('result');
    } finally {
      await client.close();
    }
    await app.goTo('Board');
    const taskCard = page
      .getByRole('region', { name: /Ready for an agent/ })
      .getByRole('listitem', { name: `Task: ${TASK}` });
    const pick = taskCard.getByRole('combobox', { name: `Agent for ${TASK}` });
    await expect(pick.locator('option').first()).toHaveText('Workspace default (Codex)');
    await pick.selectOption({ label: 'Claude Code' });
    await page.screenshot({ path: testInfo.outputPath('codex-board-pick.png') });
    await taskCard.getByRole('button', { name: 'Start a session on it' }).click();
    const claude = await w.env.api.waitForRequest(
      (r) => r.kind === 'turn' && (userTexts(r.body.messages ?? [])[0] ?? '').includes(TASK),
      300_000,
    );
    expect(claude).toBeTruthy();
    const onTask = (
      await nexus.rpc<{ sessions: { name: string; agent: string }[] }>('sessions.list', {})
    ).sessions.find((x) => x.name !== 'coder');
    expect(onTask?.agent).toBe('claude');
  } finally {
    await testInfo.attach('codex-requests', {
      body: JSON.stringify(api.turns().map((r) => r.body.input?.slice(-3))),
      contentType: 'application/json',
    });
    await w.stop();
  }
});
