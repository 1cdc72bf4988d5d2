import { natsPasswordOf } from '../test/helpers/nats-users';
import { connectRun, type RunClient } from '../test/helpers/run-client';
import { expect, test, type NexusServer } from './fixtures/nexus';
import { AppPage } from './pages/app-page';

/** A run of a new agent on a new task, connected to the app's managed NATS as that run (see review.spec.ts). */
async function runOnTask(nexus: NexusServer, agentName: string, title: string): Promise<RunClient> {
  const agent = await nexus.rpc<{ id: string }>('agents.create', { name: agentName });
  const task = await nexus.rpc<{ id: string }>('tasks.create', { title });
  const run = await nexus.rpc<{ runId: string; natsUrl: string; user: string; inboxPrefix: string; subject: string }>(
    'runs.create',
    { agentId: agent.id, taskId: task.id },
  );
  return connectRun({ ...run, password: natsPasswordOf(nexus.dataDir, run.user) });
}

test('the Board shows tasks by status and the agents’ comments live; Mark done moves a card', async ({
  page,
  nexus,
}) => {
  const client = await runOnTask(nexus, 'e2e-lead', 'Prepare the release');
  try {
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await app.goTo('Board');
    const progress = page.getByRole('region', { name: /In progress/ });
    const card = (title: string) => page.getByTestId('task-card').and(page.getByRole('listitem', { name: title }));
    await expect(progress.getByRole('listitem', { name: 'Task: Prepare the release' })).toBeVisible();

    // Live: what the agent does over NATS shows without a reload.
    expect(await client.call('board.comment', { body: 'Changelog drafted' })).toHaveProperty('result');
    await expect(card('Task: Prepare the release')).toContainText('e2e-lead: Changelog drafted');
    expect(await client.call('task.delegate', { title: 'Check the installer', roleHint: 'tester' })).toHaveProperty(
      'result',
    );
    const ready = page.getByRole('region', { name: /Ready for an agent/ });
    await expect(ready.getByRole('listitem', { name: 'Task: Check the installer' })).toContainText('for tester');
    await expect(card('Task: Check the installer')).toContainText('from e2e-lead');
    await page.screenshot({ path: test.info().outputPath('board.png') });

    await card('Task: Check the installer').getByRole('button', { name: 'Mark done' }).click();
    await expect(page.getByRole('region', { name: /Done/ }).getByRole('listitem')).toHaveCount(1);
    await expect(ready).toHaveCount(0);
  } finally {
    await client.close();
  }
});
