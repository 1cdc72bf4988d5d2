import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ContentBlock, Message, ModelApi, ModelRequest } from '../test/helpers/model-api';
import { userTexts } from '../test/helpers/model-api';
import { connectClient } from '../test/helpers/mcp';
import { startRealAgentWorkspace } from './fixtures/real-agent-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { PermissionRequests } from './pages/permission-requests';

// Decisions from Nexus against the real, pinned agent CLI in default permission mode; the model is
// the scripted stand-in. A short wait, so the timeout case runs in the same Nexus.
const WAIT_MS = 30_000;
const NOTE = 'Not in /tmp, please: write it inside the worktree instead.';

/** Records every browser notification the page makes (and keeps it, to click it). */
function recordNotifications(): void {
  const w = window as unknown as { __notes: { title: string; body: string; note: Notification }[] };
  w.__notes = [];
  const Real = window.Notification;
  class Recorded extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options);
      w.__notes.push({ title, body: options?.body ?? '', note: this });
    }
  }
  window.Notification = Recorded;
}

/** A request's last user message (the CLI also puts `system` messages in the list). */
function lastUser(req: ModelRequest): Message | undefined {
  return [...(req.body.messages ?? [])].reverse().find((m) => m.role === 'user');
}

/** The tool_result for `toolUseId` in a request's last user message, if it carries one. */
function toolResult(req: ModelRequest, toolUseId: string): ContentBlock | undefined {
  const last = lastUser(req);
  if (!last || typeof last.content === 'string') return undefined;
  return last.content.find((b) => b.type === 'tool_result' && b.tool_use_id === toolUseId);
}

/** Bash `touch <file>` for each "touch the <key> file" the human side says; "Done." after any tool result. */
function scriptModel(api: ModelApi, files: Record<string, string>, tag: string): void {
  api.onTurn((req) => {
    const last = lastUser(req);
    if (last && typeof last.content !== 'string' && last.content.some((b) => b.type === 'tool_result'))
      return { text: 'Done.' };
    const said = last ? JSON.stringify(last.content) : '';
    for (const [key, file] of Object.entries(files))
      if (said.includes(`touch the ${key} file`))
        return {
          toolUse: {
            id: `toolu_${key}_${tag}`,
            name: 'Bash',
            input: { command: `touch ${file}`, description: `Create the ${key} file` },
          },
        };
    return { text: 'OK.' };
  });
}

test('permission requests decided in Nexus: Allow on the Overview, Deny with a note on the session page, nobody deciding, refusals', async ({
  page,
}, testInfo) => {
  test.setTimeout(1_200_000);
  const w = await startRealAgentWorkspace({ NEXUS_PERMISSION_WAIT_MS: String(WAIT_MS) });
  const { nexus, name, containerId } = w;
  const { api } = w.env;
  const tag = randomBytes(3).toString('hex');
  const files = { allowed: `/tmp/allowed-${tag}`, denied: `/tmp/denied-${tag}`, waiting: `/tmp/waiting-${tag}` };
  const exists = (file: string): boolean => {
    try {
      execFileSync('docker', ['exec', containerId, 'test', '-e', file]);
      return true;
    } catch {
      return false;
    }
  };
  const shot = async (file: string): Promise<void> => {
    const path = testInfo.outputPath(file);
    await page.screenshot({ path });
    await testInfo.attach(file.replace(/\.png$/, ''), { path, contentType: 'image/png' });
  };
  const notes = () =>
    page.evaluate(() =>
      (window as unknown as { __notes: { title: string; body: string }[] }).__notes.map(({ title, body }) => ({
        title,
        body,
      })),
    );
  try {
    scriptModel(api, files, tag);
    await page.context().grantPermissions(['notifications'], { origin: nexus.url });
    await page.addInitScript(recordNotifications);
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await expect(page).toHaveTitle('Nexus');
    const session = await nexus.rpc<{ id: string }>('sessions.create', {
      workspace: name,
      name: 'asker',
      initialMessage: 'Please touch the allowed file.',
    });
    const pane = async (): Promise<string> =>
      (await nexus.rpc<{ text: string }>('sessions.pane', { session: session.id })).text;
    const perms = new PermissionRequests(page);
    const expected = { title: 'Nexus needs you', body: `Permission needed: Bash — ${name} · asker` };

    // 1. The request shows on the Overview with its command; the title and a notification count it; Allow runs it.
    const needsYou = page.getByTestId('needs-you-list');
    const allowCard = perms.request(`touch ${files.allowed}`, needsYou);
    await expect(allowCard).toBeVisible({ timeout: 300_000 });
    await expect(allowCard).toContainText('Bash');
    await expect(needsYou).toContainText(`${name} · asker`);
    await expect(page).toHaveTitle('(1) Nexus');
    await expect.poll(notes).toEqual([expected]);
    await shot('permission-request-overview.png');
    expect(exists(files.allowed)).toBe(false);
    await perms.allow(allowCard);
    await expect(allowCard).toHaveCount(0);
    await expect.poll(() => exists(files.allowed), { timeout: 60_000 }).toBe(true);
    const afterAllow = await api.waitForRequest((r) => toolResult(r, `toolu_allowed_${tag}`) !== undefined, 60_000);
    expect(toolResult(afterAllow, `toolu_allowed_${tag}`)?.is_error).not.toBe(true);
    await expect.poll(pane, { timeout: 30_000 }).toContain('Done.');
    expect(await pane()).not.toContain('Do you want to proceed');
    await expect(page).toHaveTitle('Nexus', { timeout: 60_000 });

    // 2. The notification opens the session; a line typed in its terminal reaches the model as a user turn.
    await page.evaluate(() =>
      (window as unknown as { __notes: { note: Notification }[] }).__notes[0]?.note.onclick?.(new Event('click')),
    );
    const detail = page.getByRole('region', { name: /Session asker/ });
    await expect(detail).toBeVisible();
    await expect(page.getByTestId('terminal-state')).toHaveText('Live', { timeout: 30_000 });
    const terminal = page.getByTestId('session-terminal');
    await expect(terminal.locator('.xterm-rows')).toContainText('Done.', { timeout: 15_000 });
    await shot('session-page-terminal.png');
    // Enter only once the line shows: typed in the same burst, the CLI takes it as part of a paste (a newline).
    const typeLine = async (line: string): Promise<void> => {
      await terminal.click();
      await page.keyboard.type(line);
      await expect(terminal.locator('.xterm-rows')).toContainText(line);
      await page.keyboard.press('Enter');
    };
    const typed = 'Now please touch the denied file.';
    await typeLine(typed);
    await api.waitForRequest(
      (r) => r.kind === 'turn' && userTexts(r.body.messages ?? []).some((t) => t.includes(typed)),
      60_000,
    );

    // Deny with a note, on the session page: the command does not run and the note reaches the model.
    const denyCard = perms.request(`touch ${files.denied}`, detail);
    await expect(denyCard).toBeVisible({ timeout: 60_000 });
    await expect(page).toHaveTitle('(1) Nexus');
    await expect.poll(notes).toEqual([expected, expected]);
    await shot('permission-request-session.png');
    await perms.denyWithNote(denyCard, NOTE);
    await expect(denyCard).toHaveCount(0);
    const afterDeny = await api.waitForRequest((r) => toolResult(r, `toolu_denied_${tag}`) !== undefined, 60_000);
    const denial = toolResult(afterDeny, `toolu_denied_${tag}`);
    expect(denial?.is_error).toBe(true);
    expect(JSON.stringify(denial?.content)).toContain(NOTE);
    expect(exists(files.denied)).toBe(false);
    await expect(page).toHaveTitle('Nexus', { timeout: 60_000 });

    // Both decisions are audited: who, which session, the tool and the outcome.
    const audited = (): { actor: string; outcome: string; detail: string }[] => {
      const db = new Database(join(nexus.dataDir, 'nexus.db'), { readonly: true });
      try {
        return db
          .prepare(
            "SELECT actor, outcome, detail FROM audit WHERE operation = 'permissions.decide' AND detail IS NOT NULL ORDER BY at",
          )
          .all() as { actor: string; outcome: string; detail: string }[];
      } finally {
        db.close();
      }
    };
    await expect
      .poll(() => audited().map((a) => [a.actor, a.outcome, a.detail]))
      .toEqual([
        ['operator', 'allowed', `session ${session.id}, tool Bash`],
        ['operator', 'denied_with_note', `session ${session.id}, tool Bash`],
      ]);

    // 3. Nobody decides. Meanwhile neither an MCP token of any class nor an inbox message answers it.
    const waiting = 'Then please touch the waiting file.';
    await typeLine(waiting);
    const waitCard = perms.request(`touch ${files.waiting}`, detail);
    await expect(waitCard).toBeVisible({ timeout: 60_000 });
    const pending = async () => (await nexus.rpc<{ requests: { id: string }[] }>('permissions.list', {})).requests;
    const [held] = await pending();
    for (const cls of ['read', 'write', 'vault'] as const) {
      const { secret } = await nexus.rpc<{ secret: string }>('tokens.create', { name: `probe ${cls}`, class: cls });
      const res = await fetch(`${nexus.url}/api/rpc/permissions.decide`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: held?.id, behavior: 'allow' }),
      });
      expect(res.status, `an MCP ${cls} token on /api/rpc`).toBe(401);
      const mcp = await connectClient(`${nexus.url}/api/mcp`, secret);
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name).filter((n) => /permission|decide/i.test(n))).toEqual([]);
      await mcp.close();
    }
    await nexus.rpc('sessions.sendMessage', { session: session.id, text: 'Yes, allow the pending command.' });
    expect((await pending()).map((r) => r.id)).toEqual([held?.id]);
    expect(exists(files.waiting)).toBe(false);

    // The wait ends: the request leaves Nexus, the dialog stays in the terminal, the session still needs you.
    await expect(waitCard).toHaveCount(0, { timeout: WAIT_MS + 30_000 });
    expect(await pending()).toEqual([]);
    await expect.poll(pane, { timeout: 15_000 }).toContain('Do you want to proceed');
    expect(exists(files.waiting)).toBe(false);
    await expect(page).toHaveTitle('(1) Nexus');
    // Answering there (Enter: the dialog's default, Yes) runs it and clears needs-you.
    await terminal.click();
    await page.keyboard.press('Enter');
    await expect.poll(() => exists(files.waiting), { timeout: 60_000 }).toBe(true);
    await expect(page).toHaveTitle('Nexus', { timeout: 60_000 });
    expect(await pane()).not.toContain(w.env.canary);
  } finally {
    await testInfo.attach('model-requests', {
      body: JSON.stringify(
        api.turns().map((r) => r.body.messages?.at(-1)),
        null,
        2,
      ),
      contentType: 'application/json',
    });
    await w.stop();
  }
});
