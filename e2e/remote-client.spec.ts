import { expect, test } from './fixtures/nexus';
import { RemoteAccessPage } from './pages/remote-access-page';

test("makes a client id and secret for Claude's advanced settings, shows the secret once, and deletes the client", async ({
  page,
  nexus,
}) => {
  const remote = new RemoteAccessPage(page);
  await remote.app.open(nexus.loginUrl);
  await remote.open();
  await remote.section.getByRole('button', { name: 'Create client id and secret' }).click();
  const once = remote.section.getByTestId('client-once');
  await expect(once).toContainText('shown this once');
  const clientId = (await once.getByTestId('client-id').textContent()) ?? '';
  const secret = (await once.getByTestId('client-secret').textContent()) ?? '';
  expect(clientId).toMatch(/^nexus-[A-Za-z0-9_-]{16}$/);
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  await once.getByRole('button', { name: 'Done' }).click();
  await expect(once).toHaveCount(0);

  const item = remote.section.getByTestId('remote-client').filter({ hasText: clientId });
  await expect(item).toContainText('Claude (pre-registered)');
  await expect(remote.section).not.toContainText(secret);
  const listed = await nexus.rpc<{ clients: { clientId: string }[] }>('remote.clients');
  expect(listed.clients.map((c) => c.clientId)).toEqual([clientId]);

  await item.getByRole('button', { name: 'Delete' }).click();
  await item.getByRole('button', { name: 'Confirm delete' }).click();
  await expect(item).toHaveCount(0);
  expect((await nexus.rpc<{ clients: unknown[] }>('remote.clients')).clients).toEqual([]);
});
