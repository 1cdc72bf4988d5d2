import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { expect, startNexus, test } from './fixtures/nexus';
import { AccessPage } from './pages/access-page';

const listWorkspaces = (url: string, secret: string) =>
  fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${secret}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_workspaces', arguments: {} },
    }),
  });

test('creates an MCP token shown once, which works on /api/mcp until it is revoked', async ({ page, nexus }) => {
  const access = new AccessPage(page);
  await access.app.open(nexus.loginUrl);
  await access.open();
  const secret = await access.createToken('e2e laptop', 'read', 30);
  expect(secret).toMatch(/^nxs_r_[A-Za-z0-9_-]{43}$/);
  await expect(access.access.getByTestId('token-once')).toContainText('shown this once');
  expect((await listWorkspaces(nexus.url, secret)).status).toBe(200);

  await page.reload();
  await access.open();
  const item = access.token('e2e laptop');
  await expect(item).toContainText('read');
  await expect(item).toContainText('active');
  await expect(item).toContainText(`${secret.slice(0, 10)}…`);
  await expect(item).not.toContainText('last used never');
  expect(await page.content()).not.toContain(secret.slice(10));

  await access.revoke('e2e laptop');
  await expect(item).toContainText('revoked');
  expect((await listWorkspaces(nexus.url, secret)).status).toBe(401);
  await page.screenshot({ path: test.info().outputPath('access-settings.png'), fullPage: true });
});

test('shows the claude mcp add line and connects Claude Desktop without a secret in its config', async ({ page }) => {
  const home = mkdtempSync(join(tmpdir(), 'nexus-e2e-xdg-'));
  const nexus = await startNexus({ XDG_CONFIG_HOME: home });
  try {
    const access = new AccessPage(page);
    await access.app.open(nexus.loginUrl);
    await access.open();
    await expect(access.connect.getByTestId('claude-code-command')).toHaveText(
      `claude mcp add --transport http nexus ${nexus.url}/api/mcp --header "Authorization: Bearer <token>"`,
    );
    await access.connectClaudeDesktop('write');
    await expect(access.connect.getByTestId('connect-result')).toContainText('Config written');
    await expect(access.connect.getByTestId('claude-desktop-connected')).toBeVisible();
    const config = readFileSync(join(home, 'Claude', 'claude_desktop_config.json'), 'utf8');
    expect(JSON.parse(config).mcpServers.nexus.args).toContain('mcp-stdio');
    expect(config).not.toContain('nxs_');
    await expect(access.token('Claude Desktop')).toContainText('write');
  } finally {
    await nexus.stop();
    rmSync(home, { recursive: true, force: true });
  }
});
