/**
 * `npm run soak`: N real Claude Code sessions (the pinned CLI) in workspaces of one Nexus (≤ 8 each), each
 * driven by the scripted model through a loop of real work (work.ts), messages from outside every few
 * seconds, faults on a schedule (faults.ts), resource figures every minute (resources.ts), and a
 * count at every stage (ledger.ts). Ends with the table (sent / received / lost) and a JSON result
 * in bench/results/. Run under scripts/with-keychain.sh (npm run soak does). See docs/performance.md,
 * "Load held".
 *   npm run soak -- [--sessions N] [--minutes M] [--engines 1|2]
 *                   [--faults core-kill,nats-kill,container-restart,network-cut,leaf-kill,ssh-cut,leaf-remove|none]
 * `--engines 2` (needs root): a second Docker engine on this machine, a dockerd behind an sshd on 127.0.0.1
 * (engines.ts, as the remote-engine tests make it), added to Nexus as a remote engine; workspaces alternate
 * between the engines (the remote one's workers reach core through its leaf nats-server). The container
 * faults then hit a container on each engine in turn, and two more are on the schedule: `leaf-kill` (the
 * remote leaf's nats-server SIGKILLed, as a crash) and `ssh-cut` (the engine's SSH connections cut).
 * `leaf-remove` (its leaf container removed) only when named. The table and the JSON result have
 * per-engine rows; the second engine is removed at the end and on SIGINT.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { freemem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../test/helpers/core';
import { removeOwnedBy } from '../../test/helpers/docker';
import { connectClient } from '../../test/helpers/mcp';
import { readDb } from '../../test/helpers/nexus-process';
import { giveAgentCredential, startRealAgentEnv } from '../../test/helpers/real-agent-env';
import { tempDir } from '../../test/helpers/temp-dir';
import { percentiles } from '../lib';
import { startSoakCore } from './core-handle';
import { followEvents } from './events-client';
import { byEngine } from './by-engine';
import { execIn, startSoakEngines, type SoakEngine } from './engines';
import { ALL_FAULTS, FAULTS, inflict, REMOTE_FAULTS, schedule, type FaultKind, type FaultRecord } from './faults';
import { internalAnswers } from './internal-answers';
import { Ledger, type Cut, type StageRow } from './ledger';
import { LEDGER_COUNTS_SQL, modelRequestRow } from './model-count';
import { sampler, type ResourceSample } from './resources';
import { countBy, print } from './table';
import { decisionFor, Work, type DrivenSession } from './work';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string' },
    minutes: { type: 'string', default: '30' },
    engines: { type: 'string', default: '1' },
    faults: { type: 'string' },
    'message-every': { type: 'string', default: '3' },
  },
});
/** As many as the machine holds with headroom: ~350 MB per idle real session, half the free memory. */
const fits = Math.floor((freemem() * 0.5) / (350 * 1024 ** 2));
const SESSIONS = Number(values.sessions ?? Math.max(30, fits));
const MINUTES = Number(values.minutes);
const ENGINES = Number(values.engines);
const DEFAULT_FAULTS: FaultKind[] = ENGINES > 1 ? [...FAULTS, ...REMOTE_FAULTS] : [...FAULTS];
const FAULT_LIST = (
  values.faults === 'none' ? [] : values.faults ? values.faults.split(',') : DEFAULT_FAULTS
) as FaultKind[];
const MESSAGE_EVERY_MS = Number(values['message-every']) * 1000;
/**
 * Sessions in one workspace: the 2 GiB default container held 7–8 busy real CLIs at ~240 MB each after 30 minutes
 * (docs/performance.md, "Load held"); the soak's containers get 3 GiB (real-agent-env.ts), so 8 keep headroom.
 */
const SESSIONS_PER_WORKSPACE = 8;
const RELAY_PORT = 47_631;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${s}`);

interface Row {
  id: string;
  agent_session_id: string;
  name: string;
  workspace_id: string;
}
interface SessionView {
  id: string;
  name: string;
  status: string;
  agentState: string;
  workspaceId: string;
}

async function main(): Promise<void> {
  for (const f of FAULT_LIST) if (!ALL_FAULTS.includes(f)) throw new Error(`unknown fault ${f}`);
  const engines = await startSoakEngines(ENGINES);
  const plan = schedule(
    FAULT_LIST,
    engines.list.map((e) => e.name),
  );
  // SIGINT (and SIGTERM): the clean-up below, the second engine last; a second signal leaves at once.
  let cleanUp: () => Promise<void> = () => engines.dispose();
  const onSignal = (sig: NodeJS.Signals): void => {
    log(`${sig}: cleaning up`);
    process.removeAllListeners(sig);
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const env = await startRealAgentEnv().catch(async (e: unknown) => {
    await engines.dispose();
    throw e;
  });
  const dir = tempDir('nexus-soak-');
  const dataDir = join(dir.path, 'data');
  const token = randomBytes(24).toString('hex');
  const ledger = new Ledger();
  const delegationPort = 20_000 + Math.floor(Math.random() * 20_000);
  const core = await startSoakCore(dataDir, { version: 'soak', ...env.config, mcp: { delegationPort } }, token, (r) =>
    ledger.take(r),
  ).catch(async (e: unknown) => {
    await env.close();
    await engines.dispose();
    dir.remove();
    throw e;
  });
  // At most SESSIONS_PER_WORKSPACE in one container: 15 real CLIs overrun a workspace's 2 GiB cap and its OOM killer
  // takes CLIs (docs/performance.md, "Why the 30-session run did not converge"). Two workspaces at least, and
  // one per engine; workspace i is on engine i mod engines.
  const count = Math.max(2, ENGINES, Math.ceil(SESSIONS / SESSIONS_PER_WORKSPACE));
  const workspaces = Array.from(
    { length: count },
    (_, i) => `soak-${String.fromCharCode(97 + i)}-${randomBytes(2).toString('hex')}`,
  );
  const engineOf = new Map(workspaces.map((name, i) => [name, engines.list[i % engines.list.length]!]));
  const containers = new Map<string, { id: string; containerId: string; engine: SoakEngine }>();
  let mcp = null as Client | null;
  const stopAll: (() => void)[] = [];
  let cleaned: Promise<void> | null = null;
  cleanUp = () =>
    (cleaned ??= (async () => {
      for (const stop of stopAll.splice(0)) stop();
      await mcp?.close().catch(() => undefined);
      for (const name of workspaces) await core.rpc('workspaces.delete', { workspace: name }).catch(() => undefined);
      if (engines.remoteId) await core.rpc('engines.remove', { engine: engines.remoteId }).catch(() => undefined);
      await core.stop().catch(() => undefined);
      await removeOwnedBy(dataDir).catch(() => undefined);
      await engines.dispose().catch((e: unknown) => log(`the second engine's clean-up failed: ${String(e)}`));
      await env.close();
      dir.remove();
    })());
  try {
    await core.rpc('vault.init', {});
    await giveAgentCredential((op, input) => core.rpc(op, input), env.canary);
    const { secret } = await core.rpc<{ secret: string }>('tokens.create', { name: 'soak sender', class: 'write' });
    await engines.join((op, input) => core.rpc(op, input));

    log(
      `${SESSIONS} sessions in ${workspaces.map((w) => `${w} (${engineOf.get(w)!.name})`).join(', ')} for ${MINUTES} min; ` +
        `faults: ${plan.map((f) => (f.engine ? `${f.kind}@${f.engine}` : f.kind)).join(', ') || 'none'}`,
    );
    await Promise.all(
      workspaces.map((name, i) =>
        core.rpc('workspaces.create', {
          name,
          repoUrl: env.repo.url,
          ...(ENGINES > 1 ? { engine: engineOf.get(name)!.name } : {}),
          ...(i === 1 ? { delegation: { access: 'read' } } : {}),
        }),
      ),
    );
    for (const name of workspaces) {
      for (;;) {
        const w = await core.rpc<{ id: string; status: string; containerId: string | null; reason?: string }>(
          'workspaces.get',
          { workspace: name },
        );
        if (w.status === 'running' && w.containerId) {
          containers.set(name, { id: w.id, containerId: w.containerId, engine: engineOf.get(name)! });
          break;
        }
        if (w.status === 'error') throw new Error(`workspace ${name}: ${w.reason ?? ''}`);
        await sleep(1000);
      }
    }
    const delegatedWs = containers.get(workspaces[1]!)!.id;

    // Which session a model request is: the CLI's conversation id, looked up in core's database.
    const byAgent = new Map<string, DrivenSession>();
    const refresh = (): void => {
      const rows = readDb(dataDir, (db) =>
        db.prepare('SELECT id, agent_session_id, name, workspace_id FROM sessions').all(),
      ) as Row[];
      for (const r of rows)
        byAgent.set(r.agent_session_id, {
          id: r.id,
          name: r.name,
          workspace: r.workspace_id,
          delegated: r.workspace_id === delegatedWs,
        });
    };
    const work = new Work((req) => {
      const id = req.headers['x-claude-code-session-id'] ?? '';
      if (!byAgent.has(id)) refresh();
      return byAgent.get(id) ?? null;
    });
    env.api.onTurn((req) => work.reply(req));

    // /api/events, as the UI follows it; permission asks decided from it (and from a sweep).
    const deciding = new Set<string>();
    type Ask = { id: string; workspaceId: string; toolInput: unknown };
    const decide = async (reqs: Ask[]): Promise<void> => {
      for (const r of reqs) {
        if (ledger.asks.get(r.id)?.decided || deciding.has(r.id)) continue;
        deciding.add(r.id);
        const behavior = decisionFor(r.toolInput);
        if (!ledger.asks.has(r.id)) ledger.asks.set(r.id, { decided: null, t: Date.now(), workspaceId: r.workspaceId });
        await core
          .rpc('permissions.decide', { id: r.id, behavior, ...(behavior === 'deny' ? { note: 'soak: denied' } : {}) })
          .then(() => (ledger.asks.get(r.id)!.decided = behavior))
          .catch((e: unknown) => (ledger.asks.get(r.id)!.error = String(e).slice(0, 200)))
          .finally(() => deciding.delete(r.id));
      }
    };
    const events = followEvents(
      () => {
        try {
          return core.url;
        } catch {
          return null;
        }
      },
      token,
      (name, data, digest, t) => {
        ledger.sse.add(digest);
        if (name === 'permissions.changed') void decide((JSON.parse(data) as { requests: Ask[] }).requests);
        if (name === 'sessions.changed') {
          const s = (JSON.parse(data) as { session?: { id: string; agentState: string; agentStateAt: string | null } })
            .session;
          if (s?.agentStateAt && !ledger.stateSeen.has(`${s.id}@${s.agentStateAt}`))
            ledger.stateSeen.set(`${s.id}@${s.agentStateAt}`, { t, at: s.agentStateAt, agentState: s.agentState });
        }
      },
    );
    stopAll.push(() => events.close());

    // The sessions, five at a time per workspace.
    const names: { ws: string; name: string }[] = Array.from({ length: SESSIONS }, (_, i) => ({
      ws: workspaces[i % workspaces.length]!,
      name: `soak${i}`,
    }));
    const sessionWs = new Map<string, string>();
    for (let i = 0; i < names.length; i += 10)
      await Promise.all(
        names.slice(i, i + 10).map(async ({ ws, name }) => {
          const s = await core.rpc<{ id: string; workspaceId: string }>('sessions.create', {
            workspace: ws,
            name,
            initialMessage: `soak ${name}: begin the loop`,
          });
          sessionWs.set(s.id, s.workspaceId);
        }),
      );
    const list = () => core.rpc<{ sessions: SessionView[] }>('sessions.list', {}).then((l) => l.sessions);
    /** Every session running with its agent up (not starting); and each made a model request since `since`. */
    const converged = async (since: number, ms: number): Promise<number> => {
      const t = Date.now();
      while (Date.now() - t < ms) {
        const ss = await list().catch(() => null);
        const fresh = [...sessionWs.keys()].every((id) => (work.lastTurnAt.get(id) ?? 0) >= since);
        if (
          ss &&
          ss.length === SESSIONS &&
          ss.every((s) => s.status === 'running' && s.agentState !== 'starting') &&
          fresh
        )
          return Date.now() - t;
        await sleep(1000);
      }
      return -1;
    };
    const startedIn = await converged(0, 900_000);
    if (startedIn < 0) throw new Error(`the sessions did not all start: ${JSON.stringify(await list())}`);
    log(`all ${SESSIONS} sessions started`);

    // Messages from outside through MCP send_message, round robin.
    const ids = [...sessionWs.keys()];
    let msgN = 0;
    let sending = true;
    const sender = (async () => {
      while (sending) {
        const session = ids[msgN % ids.length]!;
        const n = ++msgN;
        const t = Date.now();
        try {
          mcp ??= await connectClient(`${core.url}/api/mcp`, secret);
          const r = await mcp.callTool({
            name: 'send_message',
            arguments: { session, text: `soak-msg-${n}: next round` },
          });
          // An error keeps its code and the start of its text, so the table says why a message was not taken.
          const error = r._meta?.['nexus/error'] as { code?: string; message?: string } | undefined;
          const status = r.isError
            ? `error ${error?.code ?? '?'}: ${(error?.message ?? '').slice(0, 160)}`
            : ((r.structuredContent as { status?: string } | undefined)?.status ?? '?');
          ledger.messages.set(n, { session, t, status });
        } catch (e) {
          ledger.messages.set(n, { session, t, status: `failed: ${String(e).slice(0, 80)}` });
          await mcp?.close().catch(() => undefined);
          mcp = null;
        }
        await sleep(MESSAGE_EVERY_MS);
      }
    })();

    // Sweeps: pending permission asks; what each relay counted.
    const readRelay = async (ws: string): Promise<void> => {
      const c = containers.get(ws);
      if (!c) return;
      const script = `require('http').get('http://127.0.0.1:${RELAY_PORT}/counts',r=>{let d='';r.on('data',c=>d+=c);r.on('end',()=>console.log(d))}).on('error',()=>console.log('{}'))`;
      const r = await execIn(c.engine, c.containerId, ['/opt/nexus/node/bin/node', '-e', script]);
      try {
        const counts = JSON.parse(r?.stdout.trim() || '{}') as { pid?: number; sent?: number };
        if (counts.pid && counts.sent !== undefined) ledger.relayCount(c.id, counts.pid, counts.sent);
      } catch {
        // a relay between lives answers nothing
      }
    };
    const sweep = setInterval(() => {
      void core
        .rpc<{ requests: Ask[] }>('permissions.list', {})
        .then((l) => decide(l.requests))
        .catch(() => undefined);
    }, 3000);
    const relays = setInterval(() => void Promise.all(workspaces.map(readRelay)), 20_000);
    stopAll.push(
      () => clearInterval(sweep),
      () => clearInterval(relays),
    );

    // Resources every minute; faults spread over the run (the first after the warm-up).
    const t0 = Date.now();
    const samples: ResourceSample[] = [];
    const sample = sampler(
      dataDir,
      () => {
        try {
          return core.pid;
        } catch {
          return null;
        }
      },
      () =>
        workspaces.flatMap((w) => {
          const c = containers.get(w);
          return c ? [{ docker: c.engine.docker, id: c.containerId }] : [];
        }),
      t0,
    );
    samples.push(await sample());
    const resources = setInterval(() => void sample().then((s) => samples.push(s)), 60_000);
    stopAll.push(() => clearInterval(resources));
    const faults: FaultRecord[] = [];
    const cuts: Cut[] = [];
    const end = t0 + MINUTES * 60_000;
    const hits = new Map<string, number>();
    for (let i = 0; i < plan.length; i++) {
      const when = t0 + ((i + 1) / (plan.length + 1)) * (end - t0);
      await sleep(Math.max(0, when - Date.now()));
      const { kind, engine: engineName } = plan[i]!;
      const engine = engines.list.find((e) => e.name === engineName) ?? null;
      log(`fault: ${kind}${engine ? ` on engine ${engine.name}` : ''}`);
      // The engine's workspaces in turn (a container fault on engine e hits its next workspace).
      const onEngine = workspaces.filter((w) => engineOf.get(w) === (engine ?? engines.list[0]));
      const n = hits.get(engine?.name ?? '') ?? 0;
      hits.set(engine?.name ?? '', n + 1);
      const target = onEngine[n % onEngine.length]!;
      const rec = await inflict(kind, {
        dataDir,
        core,
        engine,
        workspace: async () => ({ name: target, containerId: containers.get(target)!.containerId }),
        beforeContainerRestart: readRelay,
        ...(engines.remote
          ? { cutSsh: () => engines.remote!.cutConnections(), sshLogins: () => engines.remote!.logins() }
          : {}),
      });
      if (kind === 'core-kill') {
        ledger.coreDown.push([rec.at, rec.undoneAt]);
        await mcp?.close().catch(() => undefined);
        mcp = null;
      }
      if (kind === 'container-restart') {
        cuts.push({ workspaceId: containers.get(target)!.id, at: rec.at, backAt: rec.undoneAt });
      }
      const convergedMs = await converged(rec.undoneAt, 300_000);
      faults.push({ ...rec, convergedMs });
      log(
        `${kind}: ${rec.detail}; converged ${convergedMs < 0 ? 'NOT within 300 s' : `in ${Math.round(convergedMs / 1000)} s`}`,
      );
      if (convergedMs < 0) {
        // Which sessions held it up, and on which engine: for the diagnosis.
        const byWs = new Map([...containers.entries()].map(([name, c]) => [c.id, `${name}@${c.engine.name}`]));
        for (const s of await list().catch(() => [] as SessionView[])) {
          const last = work.lastTurnAt.get(s.id) ?? 0;
          if (s.status === 'running' && s.agentState !== 'starting' && last >= rec.undoneAt) continue;
          log(
            `  not converged: ${s.name} in ${byWs.get(s.workspaceId) ?? s.workspaceId}: ${s.status}/${s.agentState}, ` +
              `last model request ${last ? `${Math.round((Date.now() - last) / 1000)} s ago` : 'never'}`,
          );
        }
      }
    }
    await sleep(Math.max(0, end - Date.now()));

    // Drain: no new work, every open tool call answered, every session idle, messages arrived.
    sending = false;
    await sender;
    work.draining = true;
    log('draining');
    const drainStart = Date.now();
    while (Date.now() - drainStart < 180_000) {
      const open = [...work.calls.values()].filter((c) => c.answeredAt === undefined).length;
      const ss = await list().catch(() => []);
      if (open === 0 && ss.every((s) => s.agentState === 'idle')) break;
      await sleep(2000);
    }
    await sleep(5000);
    await Promise.all(workspaces.map(readRelay));
    samples.push(await sample());
    for (const stop of stopAll.splice(0)) stop();

    const rows: StageRow[] = ledger.rows([...work.calls.values()], events.windows(), cuts, sessionWs);
    rows.push(ledger.messageRow(work.received, cuts, sessionWs), ledger.askRow());
    // The gateway's ledger against the stand-in's answers (its 200 ms batch was written during the drain's wait).
    refresh();
    const counted = readDb(dataDir, (db) => db.prepare(LEDGER_COUNTS_SQL).all()) as { session: string; n: number }[];
    const model = modelRequestRow({
      requests: env.api.requests,
      sessionOf: (agentSessionId) => byAgent.get(agentSessionId)?.id ?? null,
      ledger: new Map(counted.map((c) => [c.session, c.n])),
      coreDown: ledger.coreDown,
    });
    rows.push(model.row);
    const perEngine = byEngine({
      ledger,
      work,
      cuts,
      sessionWs,
      windows: events.windows(),
      engines: engines.list.map((e) => e.name),
      workspaces: workspaces.map((name) => ({
        name,
        id: containers.get(name)!.id,
        engine: engineOf.get(name)!.name,
      })),
    });

    const latency = [...ledger.stateSeen.values()].map((s) => s.t - Date.parse(s.at));
    const attention = [...ledger.stateSeen.values()]
      .filter((s) => s.agentState.startsWith('waiting'))
      .map((s) => s.t - Date.parse(s.at));
    const lastPid = samples[samples.length - 1]!;
    // Growth over the last core process's samples, from its first minute after the warm-up on.
    const lastCore = samples.filter((s) => s.corePid === lastPid.corePid);
    const warmFrom = Math.max(Math.min(5, MINUTES / 3), (lastCore[0]?.minute ?? 0) + 1);
    const warm = lastCore.filter((s) => s.minute >= warmFrom);
    const growth = (pick: (s: ResourceSample) => number): number => {
      const xs = warm.filter((s) => pick(s) > 0);
      return xs.length >= 2 ? Math.round(((pick(xs[xs.length - 1]!) - pick(xs[0]!)) / pick(xs[0]!)) * 1000) / 10 : 0;
    };
    const internal = internalAnswers({
      messages: ledger.messages.values(),
      rpc: core.internalAnswers,
      calls: work.calls.values(),
    });
    const result = {
      when: new Date().toISOString(),
      command:
        `npm run soak -- --sessions ${SESSIONS} --minutes ${MINUTES}${ENGINES > 1 ? ` --engines ${ENGINES}` : ''} ` +
        `--faults ${FAULT_LIST.join(',') || 'none'}`,
      sessions: SESSIONS,
      workspaces: workspaces.length,
      engines: perEngine.engines,
      placement: perEngine.placement,
      minutes: MINUTES,
      modelRequests: { all: env.api.requests.length, turns: env.api.turns().length },
      relays: ledger.relays,
      toolCalls: countBy([...work.calls.values()].map((c) => c.kind)),
      stages: rows,
      stagesByEngine: perEngine.stages,
      internalAnswers: internal,
      // Each message the agent's inbox took that no model request showed: when, to whom, what it answered.
      messagesNotReceived: [...ledger.messages.entries()]
        .filter(([n, m]) => ['delivered', 'sent_unconfirmed'].includes(m.status) && !work.received.has(n))
        .map(([n, m]) => ({ n, session: m.session, at: new Date(m.t).toISOString(), status: m.status })),
      faults,
      hookToState: percentiles(latency),
      hookToAttention: percentiles(attention),
      resources: samples,
      growthAfterWarmup: {
        coreRssPercent: growth((s) => s.coreRssMb),
        coreFdsPercent: growth((s) => s.coreFds),
        last: lastPid,
      },
    };
    print(result);
    mkdirSync(join(repoRoot, 'bench', 'results'), { recursive: true });
    const file = join(repoRoot, 'bench', 'results', `soak-${result.when.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`result: ${file}`);
    if (rows.some((r) => r.lost > r.explained) || model.doubled > 0) process.exitCode = 1;
    // `internal` is core not knowing what went wrong: no caller can act on it, so one fails the run.
    if (internal.count > 0) process.exitCode = 1;
    // Core's log goes with the data dir: kept beside the result when something is to be diagnosed.
    const coreLog = join(dataDir, 'logs', 'nexus.log');
    if ((process.exitCode === 1 || faults.some((f) => f.convergedMs < 0)) && existsSync(coreLog)) {
      copyFileSync(coreLog, file.replace(/\.json$/, '-nexus.log'));
      log(`core's log: ${file.replace(/\.json$/, '-nexus.log')}`);
    }
  } finally {
    await cleanUp();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
