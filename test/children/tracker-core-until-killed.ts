/**
 * Test child for the tracker's crash case: opens a real core on a data dir with a Redmine tracker (through the
 * test's proxy), a task linked to an issue and a run on it, prints the run's credentials and the task as one JSON
 * line, then waits to be killed.
 * argv: dataDir url apiKey project issue
 */
import { operatorContext } from '../../main/core/handlers';
import { openCore } from '../helpers/core';
import { trackedTask } from '../helpers/tracker-fixture';

const [dataDir, url, apiKey, project, issue] = process.argv.slice(2);
if (!dataDir || !url || !apiKey || !project || !issue) throw new Error('usage: dataDir url apiKey project issue');
const core = await openCore(dataDir, { tracker: { retryBaseMs: 200, retryMaxMs: 2_000 } });
await core.dispatcher.call('vault.init', {}, operatorContext('http'));
const t = await trackedTask(core, {
  workspaceId: 'ws-crash',
  name: 'crash',
  url,
  apiKey,
  project,
  issue: Number(issue),
  taskTitle: 'outlive the crash',
});
process.stdout.write(`${JSON.stringify(t)}\n`);
setInterval(() => undefined, 60_000);
