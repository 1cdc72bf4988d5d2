import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { toolNames } from '../shared/platform-tools';
import { removeWorkspaceContainers } from './fixtures/containers';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { WorkspacesPage } from './pages/workspaces-page';

// The workspace agent editor (Workspaces → Agent) needs no running container: the agent record is
// core's, so a workspace whose clone failed is enough.
interface AgentRecord {
  id: string;
  tools: string[];
  permissions: string[];
  mcpServers: unknown[];
  autoStart: boolean;
  maxAutoSessions: number;
}

const SERVER = {
  name: 'docs',
  command: 'node',
  args: ['/opt/docs-mcp/server.mjs', '--stdio'],
  env: { DOCS_TOKEN: { vault: 'docs-token' }, DOCS_API_KEY: 'literal-docs-key-0123', LOG_LEVEL: 'warn' },
  tools: ['search_docs'],
  disabled: false,
};
/** What results show of it: the literal under a secret-shaped name is masked, the vault reference is not. */
const SHOWN = { ...SERVER, env: { ...SERVER.env, DOCS_API_KEY: '[REDACTED]' } };

/** The servers as stored in the data dir (results mask secret-shaped values; the row does not). */
function storedServers(dataDir: string, agentId: string): unknown {
  const db = new Database(join(dataDir, 'nexus.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT mcp_servers FROM agents WHERE id = ?').get(agentId) as { mcp_servers: string };
    return JSON.parse(row.mcp_servers);
  } finally {
    db.close();
  }
}

async function openEditor(page: Page, workspaces: WorkspacesPage, name: string): Promise<Locator> {
  await workspaces.row(name).getByRole('button', { name: 'Agent' }).click();
  const dialog = page.getByRole('dialog', { name: `Agent of ${name}` });
  await expect(dialog.getByRole('button', { name: 'Save' })).toBeEnabled();
  return dialog;
}

test('the agent editor saves the allow-list, permissions, an MCP server and auto-start; malformed JSON saves nothing', async ({
  page,
  nexus,
}, testInfo) => {
  const name = `agent-${randomBytes(3).toString('hex')}`;
  try {
    await nexus.rpc('workspaces.create', { name, repoUrl: 'http://127.0.0.1:9/nothing.git' });
    await expect
      .poll(async () => (await nexus.rpc<{ status: string }>('workspaces.get', { workspace: name })).status, {
        timeout: 180_000,
      })
      .toBe('error');
    const stored = () => nexus.rpc<AgentRecord>('agents.forWorkspace', { workspace: name });
    const before = await stored();
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Workspaces');
    const workspaces = new WorkspacesPage(page);

    // A new agent: no tool ticked (every tool whose check passes), every permission, no servers.
    let dialog = await openEditor(page, workspaces, name);
    const tools = dialog.getByRole('group', { name: /Platform tools offered/ });
    const perms = dialog.getByRole('group', { name: 'Permissions' });
    const servers = dialog.getByRole('textbox', { name: 'MCP servers' });
    for (const box of await tools.getByRole('checkbox').all()) await expect(box).not.toBeChecked();
    for (const box of await perms.getByRole('checkbox').all()) await expect(box).toBeChecked();

    // Malformed JSON: a clear error on the field, Save stays off, and Cancel leaves the record as it was.
    await tools.getByLabel('memory.search').check();
    await servers.fill('[{ "name": "docs", "command": ');
    await expect(servers).toHaveAttribute('aria-invalid', 'true');
    await expect(servers).toHaveAccessibleDescription('Not valid JSON.');
    await expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
    await page.screenshot({ path: testInfo.outputPath('agent-editor-bad-json.png') });
    // A reserved name is refused the same way, saying why.
    await servers.fill(JSON.stringify([{ name: 'nexus', command: 'node' }]));
    await expect(servers).toHaveAccessibleDescription('0.name: that name is reserved');
    await expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    expect(await stored()).toEqual(before);

    // The edit: three tools, two permissions, one external server, auto-start capped at 3.
    dialog = await openEditor(page, workspaces, name);
    for (const t of ['memory.search', 'task.delegate', 'board.comment']) await tools.getByLabel(t).check();
    await perms.getByLabel('Propose memories').uncheck();
    await perms.getByLabel('Propose skills').uncheck();
    await servers.fill(JSON.stringify([SERVER]));
    await expect(servers).not.toHaveAttribute('aria-invalid');
    await dialog.getByLabel('Start a session on each task delegated in this workspace').check();
    await dialog.getByLabel('Most auto-started sessions at once').fill('3');
    await page.screenshot({ path: testInfo.outputPath('agent-editor-filled.png') });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();

    const want = {
      id: before.id,
      tools: ['memory.search', 'task.delegate', 'board.comment'],
      permissions: ['task.write', 'board.write'],
      mcpServers: [SHOWN],
      autoStart: true,
      maxAutoSessions: 3,
    };
    const saved = await stored();
    expect({ ...saved, tools: [...saved.tools].sort(), permissions: [...saved.permissions].sort() }).toMatchObject({
      ...want,
      tools: [...want.tools].sort(),
      permissions: [...want.permissions].sort(),
    });

    // Reopened (after a reload, so from core), the dialog shows what was saved.
    await page.reload();
    await app.goTo('Workspaces');
    dialog = await openEditor(page, workspaces, name);
    for (const t of toolNames)
      if (want.tools.includes(t)) await expect(tools.getByLabel(t, { exact: true })).toBeChecked();
      else await expect(tools.getByLabel(t, { exact: true })).not.toBeChecked();
    await expect(perms.getByLabel('Propose memories')).not.toBeChecked();
    await expect(perms.getByLabel('Propose skills')).not.toBeChecked();
    await expect(perms.getByLabel('Create tasks (subtasks, delegations)')).toBeChecked();
    await expect(perms.getByLabel('Comment on the board')).toBeChecked();
    expect(JSON.parse(await servers.inputValue())).toEqual([SHOWN]);
    await expect(dialog.getByLabel('Start a session on each task delegated in this workspace')).toBeChecked();
    await expect(dialog.getByLabel('Most auto-started sessions at once')).toHaveValue('3');
    await page.screenshot({ path: testInfo.outputPath('agent-editor-reopened.png') });
    expect(storedServers(nexus.dataDir, before.id)).toEqual([SERVER]);

    // Saved again as shown, the masked literal keeps its stored value.
    await dialog.getByLabel('Most auto-started sessions at once').fill('4');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    expect((await stored()).maxAutoSessions).toBe(4);
    expect(storedServers(nexus.dataDir, before.id)).toEqual([SERVER]);
  } finally {
    removeWorkspaceContainers(name);
  }
});
