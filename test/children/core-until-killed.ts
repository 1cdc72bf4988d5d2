/**
 * Test child for crash recovery: opens a real core on a data dir (argv[2]), starts one run and
 * one workspace's hook publisher the way a session does, prints their credentials as one JSON
 * line and then waits to be killed.
 */
import { openCore } from '../helpers/core';

const [dataDir, workspaceId] = process.argv.slice(2);
if (!dataDir || !workspaceId) throw new Error('usage: core-until-killed <dataDir> <workspaceId>');
const core = await openCore(dataDir);
const agent = core.platform.createAgent({ name: 'survivor' });
const task = core.platform.createTask({ title: 'outlive the crash' });
const run = await core.platform.createRun(agent.id, task.id);
const hook = await core.platform.createHookPublisher(workspaceId);
process.stdout.write(`${JSON.stringify({ run, hook, serverPid: core.platform.serverPid })}\n`);
setInterval(() => undefined, 60_000);
