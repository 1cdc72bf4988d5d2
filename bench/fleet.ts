import { operatorContext } from '../main/core/handlers';
import type { serve } from '../main/serve';
import { coreDb } from '../test/helpers/core';

/**
 * 50 workspaces × 10 sessions written straight into the store (stopped workspaces without a
 * container, so list_workspaces reconciles real rows with the real engine; sessions in mixed
 * agent states, so the attention roll-up has work to do).
 */
export async function seedFleet(running: Awaited<ReturnType<typeof serve>>): Promise<string> {
  const db = coreDb(running.core);
  const now = new Date().toISOString();
  const states = ['working', 'idle', 'waiting_permission', 'waiting_input', 'starting'];
  const ws = db.prepare(
    "INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) VALUES (?, ?, ?, 'stopped', ?, ?, ?)",
  );
  const ss = db.prepare(
    'INSERT INTO sessions (id, workspace_id, name, branch, status, agent_state, agent_state_at, ' +
      "agent_message, agent_session_id, created_at, updated_at) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, " +
      '?, ?)',
  );
  db.transaction(() => {
    for (let w = 0; w < 50; w++) {
      const wid = `bench-ws-${w}`;
      ws.run(wid, `bench-${w}`, `https://example.invalid/repo-${w}.git`, `nexus-bench-vol-${w}`, now, now);
      for (let s = 0; s < 10; s++) {
        const state = states[(w + s) % states.length] ?? 'idle';
        ss.run(
          `${wid}-s${s}`,
          wid,
          `s${s}`,
          `nexus/s${s}`,
          state,
          now,
          state === 'waiting_permission' ? 'Claude needs your permission to use Bash' : null,
          `agent-${w}-${s}`,
          now,
          now,
        );
      }
    }
  })();
  const { workspaces } = await running.core.dispatcher.call('workspaces.list', {}, operatorContext('internal'));
  const { sessions } = await running.core.dispatcher.call('sessions.list', {}, operatorContext('internal'));
  return `${workspaces.length} workspaces × ${sessions.length / Math.max(1, workspaces.length)} sessions`;
}
