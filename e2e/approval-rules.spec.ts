import { randomBytes } from 'node:crypto';
import type { ModelApi, ModelRequest } from '../test/helpers/model-api';
import { startRealAgentWorkspace } from './fixtures/real-agent-workspace';
import { expect, test } from './fixtures/nexus';
import { AppPage } from './pages/app-page';
import { PermissionRequests } from './pages/permission-requests';

/** Whether a request's last user message carries a tool result. */
function answersATool(req: ModelRequest): boolean {
  const last = [...(req.body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return !!last && typeof last.content !== 'string' && last.content.some((b) => b.type === 'tool_result');
}

/** `node -e 1` twice (the first asked, the second under the grant), then "Done.". */
function scriptModel(api: ModelApi, tag: string): void {
  let calls = 0;
  api.onTurn((req) => {
    if (req.kind !== 'turn') return { text: 'OK.' };
    if (calls < 2 && (calls === 0 || answersATool(req)))
      return {
        toolUse: {
          id: `toolu_node_${++calls}_${tag}`,
          name: 'Bash',
          input: { command: 'node -e 1', description: 'Run' },
        },
      };
    return { text: 'Done.' };
  });
}

test('a grant from the card: the narrowest rule shown first, saved for the session, used for the next call, revoked in Settings', async ({
  page,
}) => {
  test.setTimeout(900_000);
  const w = await startRealAgentWorkspace();
  const { nexus, name } = w;
  const tag = randomBytes(3).toString('hex');
  try {
    scriptModel(w.env.api, tag);
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    const session = await nexus.rpc<{ id: string }>('sessions.create', {
      workspace: name,
      name: 'granted',
      initialMessage: 'Run node twice.',
    });
    const perms = new PermissionRequests(page);
    const card = perms.request('node -e 1', page.getByTestId('needs-you-list'));
    await expect(card).toBeVisible({ timeout: 300_000 });
    await card.getByRole('button', { name: 'Allow this for the session' }).click();
    await expect(card.getByTestId('grant-draft')).toContainText(
      'Saves the rule allow shell inside:node -e 1 for this session',
    );
    await card.getByRole('button', { name: 'Save and allow' }).click();
    await expect(card).toHaveCount(0);
    // The second call runs under the grant: no card, and the session's page counts the ask saved.
    await w.env.api.waitForRequest(
      (r) => answersATool(r) && JSON.stringify(r.body.messages ?? []).includes(`toolu_node_2_${tag}`),
      120_000,
    );
    await page.goto(`${nexus.url}/#/sessions/${session.id}`);
    const saved = page.getByTestId('auto-decisions');
    await expect(saved).toContainText('The rules saved 1 ask in this session', { timeout: 30_000 });
    await saved.locator('summary').click();
    await expect(saved.getByTestId('auto-decision')).toContainText('auto-allowed');
    await expect(saved.getByTestId('auto-decision')).toContainText('allow shell inside:node -e 1');
    // Settings lists the grant; Revoke removes it.
    await app.goTo('Settings');
    const rules = page.getByTestId('settings-rules');
    const grant = rules.getByTestId('rule-item').filter({ hasText: 'inside:node -e 1' });
    await expect(grant).toContainText('session');
    await grant.getByRole('button', { name: 'Revoke' }).click();
    await expect(grant).toHaveCount(0);
    expect(
      (await nexus.rpc<{ rules: { scope: string }[] }>('rules.list', { sessionId: session.id })).rules.filter(
        (r) => r.scope !== 'default',
      ),
    ).toEqual([]);
  } finally {
    await w.stop();
  }
});
