import type { Core } from '../../main/core';
import { operatorContext } from '../../main/core/handlers';
import type { RunCredentials } from '../../main/core/platform/platform-service';
import type { OpInput, OpName, OpOutput } from '../../shared/contract';
import { coreDb } from './core';

/** Calls an operation as the operator at the app. */
export const asOperator = <K extends OpName>(core: Core, op: K, input: OpInput<K>): Promise<OpOutput<K>> =>
  core.dispatcher.call(op, input, operatorContext('http')) as Promise<OpOutput<K>>;

/**
 * A workspace row (no container: the tracker needs none) with a tracker (Redmine unless `kind`) whose key is a vault secret,
 * a task of the workspace linked to `issue`, and a run of an agent on it, as a session's would be.
 */
export async function trackedTask(
  core: Core,
  o: {
    workspaceId: string;
    name: string;
    url: string;
    apiKey: string;
    project: string;
    issue: number;
    taskTitle: string;
    /** Default redmine. */
    kind?: 'redmine' | 'github';
  },
  statusMap: Partial<Record<'planned' | 'ready_for_agent' | 'in_progress' | 'done' | 'cancelled', string>> = {},
): Promise<{ taskId: string; run: RunCredentials }> {
  const now = new Date().toISOString();
  coreDb(core)
    .prepare(
      'INSERT OR IGNORE INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) ' +
        "VALUES (?, ?, 'https://example.invalid/r.git', 'stopped', ?, ?, ?)",
    )
    .run(o.workspaceId, o.name, `nexus-test-vol-${o.workspaceId}`, now, now);
  const secret = await asOperator(core, 'secrets.create', {
    name: `${o.kind ?? 'redmine'} ${o.workspaceId}`,
    kind: 'generic',
    host: new URL(o.url).host,
    value: o.apiKey,
  });
  await asOperator(core, 'tracker.set', {
    workspace: o.workspaceId,
    tracker: {
      kind: o.kind ?? 'redmine',
      url: o.url,
      project: o.project,
      secretId: secret.id,
      statusMap,
      pickup: null,
    },
  });
  const task = core.platform.createTask({ title: o.taskTitle, project: o.workspaceId });
  await asOperator(core, 'tracker.link', { taskId: task.id, issue: o.issue });
  const agent = core.platform.createAgent({ name: `agent-${o.name}`, project: o.workspaceId });
  const run = await core.platform.createRun(agent.id, task.id);
  return { taskId: task.id, run };
}
