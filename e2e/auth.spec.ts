import { expect, test } from './fixtures/nexus';

test('without the token the API answers 401 and the page does not load', async ({ page, request, nexus }) => {
  const api = await request.post(`${nexus.url}/api/rpc/app.info`, { data: {} });
  expect(api.status()).toBe(401);
  expect(await api.json()).toMatchObject({ error: { code: 'unauthorized' } });

  const res = await page.goto(`${nexus.url}/`);
  expect(res?.status()).toBe(401);
  await expect(page.getByTestId('status-bar')).toHaveCount(0);
});

test('a wrong token in the URL is refused and sets no cookie', async ({ page, nexus }) => {
  const res = await page.goto(`${nexus.url}/?token=not-the-token`);
  expect(res?.status()).toBe(401);
  expect(await page.context().cookies()).toHaveLength(0);
});
