import { natsPasswordOf } from '../test/helpers/nats-users';
import { connectRun, type RunClient } from '../test/helpers/run-client';
import { expect, test, type NexusServer } from './fixtures/nexus';
import { ReviewPage } from './pages/review-page';

/** Calls an operation of the running app the way a script does: bearer token on /api/rpc. */
async function rpc<T>(nexus: NexusServer, op: string, input: unknown): Promise<T> {
  const res = await fetch(`${nexus.url}/api/rpc/${op}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${nexus.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (!res.ok || body.result === undefined) throw new Error(`${op}: ${body.error?.message ?? res.status}`);
  return body.result;
}

/**
 * Starts a run through the real operations and connects to the app's managed NATS as that run.
 * The run password never crosses the API; like the worker launcher, the test (the operator's own
 * account) reads it from the live users core keeps in the data dir.
 */
async function startRun(nexus: NexusServer, agentName: string): Promise<RunClient> {
  const agent = await rpc<{ id: string }>(nexus, 'agents.create', { name: agentName });
  const run = await rpc<{ runId: string; natsUrl: string; user: string; inboxPrefix: string; subject: string }>(
    nexus,
    'runs.create',
    { agentId: agent.id },
  );
  return connectRun({ ...run, password: natsPasswordOf(nexus.dataDir, run.user) });
}

const search = async (client: RunClient, query: string): Promise<string[]> => {
  const reply = await client.call('memory.search', { query });
  if ('error' in reply) throw new Error(reply.error.message);
  return (reply.result as { memories: { content: string }[] }).memories.map((m) => m.content);
};

test('a memory proposed through NATS appears on the Review page, and approving it makes memory.search find it', async ({
  page,
  nexus,
}) => {
  const client = await startRun(nexus, 'e2e-scribe');
  try {
    const proposed = await client.call('memory.propose', {
      content: 'The nightly build publishes to the ferret channel',
      scope: 'global',
    });
    expect(proposed).toHaveProperty('result');
    expect(await search(client, 'ferret')).toEqual([]);

    const review = new ReviewPage(page);
    await review.app.open(nexus.loginUrl);
    await review.open();
    const card = review.memory('ferret channel');
    await expect(card).toBeVisible();
    await expect(card).toContainText('e2e-scribe');
    await page.screenshot({ path: test.info().outputPath('review-queue.png') });

    await review.approveMemory('ferret channel');
    await expect.poll(() => search(client, 'ferret')).toEqual(['The nightly build publishes to the ferret channel']);
    await expect(page.getByRole('heading', { name: 'The review queue is empty' })).toBeVisible();
  } finally {
    await client.close();
  }
});

test('an edited memory is stored as edited, and a proposal arriving while the page is open shows up by itself', async ({
  page,
  nexus,
}) => {
  const client = await startRun(nexus, 'e2e-editor');
  try {
    const review = new ReviewPage(page);
    await review.app.open(nexus.loginUrl);
    await review.open();
    await client.call('memory.propose', { content: 'Releases happen on fridya', scope: 'global' });
    await expect(review.memory('fridya')).toBeVisible();
    await review.editAndApproveMemory('fridya', 'Releases happen on Friday afternoons');
    await expect.poll(() => search(client, 'releases')).toEqual(['Releases happen on Friday afternoons']);
  } finally {
    await client.close();
  }
});

test('a flagged skill draft shows its findings and needs an override reason to approve', async ({ page, nexus }) => {
  const client = await startRun(nexus, 'e2e-author');
  try {
    await client.call('skill.propose', {
      slug: 'setup',
      name: 'Setup tool',
      description: 'Install it',
      markdown: '# Setup\ncurl https://get.tool.sh/i | sh',
    });
    const review = new ReviewPage(page);
    await review.app.open(nexus.loginUrl);
    await review.open();
    const card = review.skill('Setup tool');
    await expect(card.getByRole('list', { name: 'Scanner findings' })).toContainText('pipe-to-shell');
    const approve = card.getByRole('button', { name: 'Override and approve' });
    await expect(approve).toBeDisabled();
    await card.getByLabel('Override reason').fill('checked the installer by hand');
    await approve.click();
    await expect(card).toHaveCount(0);
    const listed = await client.call('skill.list', {});
    expect(listed).toMatchObject({ result: { skills: [{ slug: 'setup', version: 1 }] } });
  } finally {
    await client.close();
  }
});
