/**
 * The soak's core: `serve()` (core, loopback host, /api/mcp, the worker listener) in a process of its
 * own, so the soak can SIGKILL it and start it again on the same data dir, with two taps that only
 * watch and tell the parent over IPC, one message per thing seen:
 *  - every message on nexus.hooks.* core took in (after core's own handler ran, so the session's
 *    row in the database shows whether the state was written: `db`);
 *  - every event core put on its bus (what /api/events must carry), as a digest of its wire text.
 *   node --import tsx bench/soak/core-process.ts <dataDir> <config JSON> <start token>
 */
import { createHash } from 'node:crypto';
import { agentStateFromHook, HookMessage, RelayNotice } from '../../main/core/sessions/hooks/hook-events';
import { serve } from '../../main/serve';
import { coreDb, repoRoot } from '../../test/helpers/core';
import type { ChildReport, DbOutcome } from './reports';

const [dataDir, configJson, token] = process.argv.slice(2);
if (!dataDir || !configJson || !token) throw new Error('usage: core-process.ts <dataDir> <config JSON> <token>');
const tell = (m: ChildReport): void => void process.send?.(m);

const running = await serve({ dataDir, appRoot: repoRoot, port: 0, config: JSON.parse(configJson), token });
const db = coreDb(running.core);
const row = db.prepare('SELECT agent_state_at AS at, status FROM sessions WHERE id = ?');

/** What core's handler (registered first, run first) left in the row for this event. */
function outcome(msg: HookMessage): DbOutcome {
  if (!agentStateFromHook(msg.event)) return 'unmapped';
  const r = row.get(msg.sessionId) as { at: string | null; status: string } | undefined;
  if (!r) return 'no-session';
  if (r.at === msg.at) return 'written';
  if (r.at !== null && r.at > msg.at) return 'superseded';
  return 'missed';
}

running.core.platform.onHookEvent(({ workspaceId, event }) => {
  const at = Date.now();
  const notice = RelayNotice.safeParse(event);
  if (notice.success) {
    const { probe, crashes, dropped, pid } = notice.data.relay;
    if (!probe) tell({ kind: 'notice', workspaceId, crashes, dropped: dropped ?? 0, pid: pid ?? 0, t: at });
    return;
  }
  const parsed = HookMessage.safeParse(event);
  if (!parsed.success) return tell({ kind: 'rejected', workspaceId, t: at });
  const raw = event as { seq?: unknown; relayPid?: unknown; relayRun?: unknown };
  tell({
    kind: 'hook',
    workspaceId,
    sessionId: parsed.data.sessionId,
    name: parsed.data.event.hook_event_name,
    at: parsed.data.at,
    seq: typeof raw.seq === 'number' ? raw.seq : null,
    relayPid: typeof raw.relayPid === 'number' ? raw.relayPid : null,
    relayRun: typeof raw.relayRun === 'string' ? raw.relayRun : null,
    db: outcome(parsed.data),
    t: at,
  });
});

running.core.events.subscribe((m) => {
  const data = JSON.stringify(m.payload);
  const digest = createHash('sha1').update(`${m.name}\n${data}`).digest('hex');
  const s = (m.payload as { session?: { id: string; agentState: string; agentStateAt: string | null } }).session;
  tell({
    kind: 'bus',
    name: m.name,
    digest,
    t: Date.now(),
    ...(m.name === 'sessions.changed' && s
      ? { session: s.id, agentState: s.agentState, agentStateAt: s.agentStateAt }
      : {}),
  });
});

tell({
  kind: 'ready',
  url: running.host.url,
  pid: process.pid,
  delegationUrl: running.core.delegation.endpoint() ?? null,
});

const stop = (): void => {
  void running.stop().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
