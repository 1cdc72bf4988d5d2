import { randomBytes } from 'node:crypto';
import type { ModelReply, ModelRequest } from '../test/helpers/model-api';
import { userTexts } from '../test/helpers/model-api';
import { startRealAgentWorkspace } from './fixtures/real-agent-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';

// A delegation by the real, pinned agent CLI (the model is the scripted stand-in) reaches the Board,
// and the operator starts a session on it from there.
const TITLE = 'Check the installer on arm64';
const GOAL = 'Run the installer on a clean arm64 image and report what breaks.';
const ASK = 'Split off the installer check for a tester, please.';

/** The tool results the CLI sent since the model's last answer (the CLI adds text and system messages around them). */
function lastToolResults(req: ModelRequest): { id: string; text: string; error: boolean }[] {
  const messages = req.body.messages ?? [];
  const since = messages.slice(messages.findLastIndex((m) => m.role === 'assistant') + 1);
  return since.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content
          .filter((b) => b.type === 'tool_result')
          .map((b) => ({ id: b.tool_use_id ?? '', text: JSON.stringify(b.content ?? ''), error: b.is_error === true })),
  );
}

/**
 * The delegating session: ToolSearch `select:mcp__nexus__task_delegate`, then the call. When the
 * search finds nothing (the CLI's first request can beat nexus-mcp's handshake), it ends the turn
 * and searches again on the next message. Every other conversation gets "On it.".
 */
function scriptModel(tag: string): (req: ModelRequest) => ModelReply {
  const search = `toolu_search_${tag}_`;
  const delegate = `toolu_delegate_${tag}_`;
  let n = 0;
  return (req) => {
    if (!userTexts(req.body.messages ?? [])[0]?.includes(ASK)) return { text: 'On it.' };
    const results = lastToolResults(req);
    const done = results.find((r) => r.id.startsWith(delegate));
    if (done) return { text: done.error ? 'Waiting for the tools.' : 'Delegated.' };
    const found = results.find((r) => r.id.startsWith(search));
    if (found)
      return found.text.includes('mcp__nexus__task_delegate')
        ? {
            toolUse: {
              id: `${delegate}${n++}`,
              name: 'mcp__nexus__task_delegate',
              input: { title: TITLE, body: GOAL, roleHint: 'tester' },
            },
          }
        : { text: 'Waiting for the tools.' };
    return {
      toolUse: { id: `${search}${n++}`, name: 'ToolSearch', input: { query: 'select:mcp__nexus__task_delegate' } },
    };
  };
}

test('a task the real agent delegates shows on the Board for its role, from "workspace · session"; Start a session on it runs one on that task', async ({
  page,
}, testInfo) => {
  test.setTimeout(900_000);
  const w = await startRealAgentWorkspace();
  const { nexus, name } = w;
  const { api } = w.env;
  try {
    api.onTurn(scriptModel(randomBytes(3).toString('hex')));
    const lead = await nexus.rpc<{ id: string }>('sessions.create', {
      workspace: name,
      name: 'lead',
      initialMessage: ASK,
    });
    type Board = { tasks: { title: string; status: string }[] };
    const delegated = async (): Promise<boolean> =>
      (await nexus.rpc<Board>('board.list', {})).tasks.some((t) => t.title === TITLE);
    // Nudge the lead while its search found nothing (nexus-mcp still connecting), at most a few times.
    await expect
      .poll(
        async () => {
          if (await delegated()) return true;
          const s = await nexus.rpc<{ agentState: string }>('sessions.get', { session: lead.id });
          if (s.agentState === 'idle' && api.turns().some((r) => userTexts(r.body.messages ?? [])[0]?.includes(ASK)))
            await nexus.rpc('sessions.sendMessage', { session: lead.id, text: 'The tools should be there now.' });
          return false;
        },
        { timeout: 480_000, intervals: [15_000] },
      )
      .toBe(true);

    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Board');
    const ready = page.getByRole('region', { name: /Ready for an agent/ });
    const card = ready.getByRole('listitem', { name: `Task: ${TITLE}` });
    await expect(card).toContainText('for tester');
    await expect(card).toContainText(`from ${name} · lead`);
    await expect(card.getByRole('link', { name: `${name} · lead` })).toHaveAttribute('href', `#/sessions/${lead.id}`);
    await expect(card).not.toContainText(/workspace:|[0-9a-f]{8}-[0-9a-f]{4}/);
    await page.screenshot({ path: testInfo.outputPath('board-delegated.png') });

    const turnsBefore = api.turns().length;
    await card.getByRole('button', { name: 'Start a session on it' }).click();
    const progress = page.getByRole('region', { name: /In progress/ });
    const started = progress.getByRole('listitem', { name: `Task: ${TITLE}` });
    await expect(started).toBeVisible();
    await expect(ready.getByRole('listitem', { name: `Task: ${TITLE}` })).toHaveCount(0);

    // The new session's first model request carries the task's title and goal.
    const first = await api.waitForRequest(
      (r) => r.seq >= turnsBefore && r.kind === 'turn' && (userTexts(r.body.messages ?? [])[0] ?? '').includes(TITLE),
      300_000,
    );
    const conversation = first.headers['x-claude-code-session-id'];
    const opening = api.turns().find((r) => r.headers['x-claude-code-session-id'] === conversation);
    expect(userTexts(opening?.body.messages ?? [])[0]).toContain(TITLE);
    expect(userTexts(opening?.body.messages ?? [])[0]).toContain(GOAL);

    // The session's page names the task; the card links to it.
    const link = started.getByRole('link', { name: new RegExp(`^${name} · check-the-installer-on-arm64-`) });
    await link.click();
    const detail = page.getByRole('region', { name: /Session check-the-installer-on-arm64-/ });
    await expect(detail).toContainText(`Runs on task: ${TITLE}`);
    await page.screenshot({ path: testInfo.outputPath('session-on-task.png') });
  } finally {
    await testInfo.attach('model-requests', {
      body: JSON.stringify(
        api
          .turns()
          .map((r) => [
            r.headers['x-claude-code-session-id'],
            r.body.messages?.filter((m) => m.role !== ('system' as string)).slice(-3),
          ]),
        null,
        2,
      ),
      contentType: 'application/json',
    });
    await w.stop();
  }
});
