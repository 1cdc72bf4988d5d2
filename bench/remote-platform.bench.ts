import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { connect } from '@nats-io/transport-node';
import { userAuth } from '../main/core/platform/nats/auth';
import { nexusMcpEnv } from '../main/core/platform/nexus-mcp-env';
import { WorkspaceRuntime } from '../main/core/workspaces/runtime';
import { WORKER_NODE } from '../main/core/docker';
import { connectRun } from '../test/helpers/run-client';
import { startRemoteFleet } from '../test/helpers/second-engine';
import { compare, measurePair, percentiles, type Benchmark, type Measurement } from './lib';

const SESSIONS = Number(process.env.NEXUS_BENCH_REMOTE_SESSIONS ?? 6);
const WORKSPACES = Number(process.env.NEXUS_BENCH_REMOTE_WORKSPACES ?? 3);
const CALLS = Number(process.env.NEXUS_BENCH_REMOTE_CALLS ?? 200);
const HOOKS = Number(process.env.NEXUS_BENCH_REMOTE_HOOKS ?? 80);
/** What carries the remote engine's leaf link (core config `nats.leafForwarder`): run the bench once with each. */
const FORWARDER = process.env.NEXUS_BENCH_LEAF_FORWARDER === 'ssh2' ? 'ssh2' : 'openssh';
const RELAY_PORT = 47_631; // sessions config hookRelayPort's default
const NEXUS_MCP = '/opt/nexus/bin/nexus-mcp'; // sessions config nexusMcpCommand's default

/**
 * Resident in a workspace container, as the agent's side is: per stdin line, fires a hook the way
 * the agent's HTTP hooks do (a POST to the workspace's hook relay on 127.0.0.1; prints the
 * monotonic clock when it did — the host's clock, containers share the kernel), or calls
 * `memory_search` through a nexus-mcp it started with the run's environment, as the agent's tool
 * call goes (stdio JSON-RPC; prints the call's time, measured in the container).
 */
const DRIVER = `const http=require('http'),cp=require('child_process');let b='',mb='',mcp=null,id=0;const pend=new Map();
const out=(x)=>process.stdout.write(JSON.stringify(x)+'\\n');
const rpc=(method,params)=>new Promise((r)=>{const i=++id;pend.set(i,r);mcp.stdin.write(JSON.stringify({jsonrpc:'2.0',id:i,method,params})+'\\n');});
const agent=new http.Agent({keepAlive:false});
async function handle(o){
 if(o.mcp){mcp=cp.spawn(o.mcp.command,[],{env:{...process.env,...o.mcp.env},stdio:['pipe','pipe','ignore']});
  mcp.stdout.on('data',(d)=>{mb+=d;let i;while((i=mb.indexOf('\\n'))>=0){const l=mb.slice(0,i);mb=mb.slice(i+1);let m;try{m=JSON.parse(l);}catch{continue;}if(m.id!==undefined&&pend.has(m.id)){pend.get(m.id)(m);pend.delete(m.id);}}});
  await rpc('initialize',{protocolVersion:'2025-06-18',capabilities:{},clientInfo:{name:'bench',version:'1'}});
  mcp.stdin.write(JSON.stringify({jsonrpc:'2.0',method:'notifications/initialized'})+'\\n');
  for(let n=0;;n++){const l=await rpc('tools/list',{});if(((l.result&&l.result.tools)||[]).some((t)=>t.name==='memory_search'))break;if(n>150)throw new Error('no memory_search tool');await new Promise((r)=>setTimeout(r,200));}
  return out({ready:true});}
 if(o.search){const t=performance.now();const r=await rpc('tools/call',{name:'memory_search',arguments:{query:'deploys'}});const ms=performance.now()-t;
  const bad=r.error||(r.result&&r.result.isError)?JSON.stringify(r.error||r.result.content).slice(0,300):null;return out({ms,error:bad});}
 if(o.hook){const t=process.hrtime.bigint().toString();const q=http.request({host:'127.0.0.1',port:o.port,path:'/nexus-hook',method:'POST',agent,headers:{'content-type':'application/json','x-nexus-session':o.session}},(res)=>{res.resume();res.on('end',()=>out({t,status:res.statusCode}));});
  q.on('error',(e)=>out({error:String(e)}));q.end(JSON.stringify(o.hook));}
}
process.stdin.on('data',(d)=>{b+=d;let i;while((i=b.indexOf('\\n'))>=0){const l=b.slice(0,i);b=b.slice(i+1);handle(JSON.parse(l)).catch((e)=>out({error:String(e)}));}});`;

/** performance.now() at boot, from /proc/uptime (10 ms resolution, like a process's start time). */
const bootAt = (): number => performance.now() - Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;

/** When the session's agent process (claude) started, on this process's performance.now() clock; null: none seen. */
function agentStartedAt(containerId: string, dockerHost: string | null, sessionId: string): Promise<number | null> {
  const script = `for p in /proc/[0-9]*; do
    [ "$(cat $p/comm 2>/dev/null)" = claude ] || continue
    tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -qx "NEXUS_SESSION_ID=$1" && cut -d' ' -f22 $p/stat
  done`;
  return new Promise((resolve) =>
    execFile(
      'docker',
      [...(dockerHost ? ['-H', dockerHost] : []), 'exec', containerId, 'sh', '-c', script, 'sh', sessionId],
      (err, stdout) => {
        const ticks = stdout
          .split('\n')
          .filter(Boolean)
          .map(Number)
          .sort((a, b) => a - b)[0];
        resolve(err || ticks === undefined ? null : bootAt() + ticks * 10);
      },
    ),
  );
}

interface Driver {
  send(order: object): Promise<{ t?: string; status?: number; ms?: number; error?: string | null; ready?: boolean }>;
  close(): void;
}

/** The driver in a container (docker exec -i on its engine's own socket: the exec only starts it, outside the figures). */
function startDriver(containerId: string, dockerHost: string | null): Driver {
  const child: ChildProcess = spawn(
    'docker',
    [...(dockerHost ? ['-H', dockerHost] : []), 'exec', '-i', containerId, WORKER_NODE, '-e', DRIVER],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const waiting: ((line: string) => void)[] = [];
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      waiting.shift()?.(line);
    }
  });
  return {
    send: (order) =>
      new Promise((resolve, reject) => {
        waiting.push((line) => {
          const r = JSON.parse(line) as { error?: string | null };
          if (r.error) reject(new Error(r.error));
          else resolve(r);
        });
        child.stdin!.write(`${JSON.stringify(order)}\n`);
      }),
    close: () => {
      child.stdin!.end();
      child.kill();
    },
  };
}

/**
 * Base and subject alternating in rounds (as measurePair), each call returning its own sample in
 * ms (a time taken where it happens: in the container, or across the container and the host).
 * CPU per call is this process's, which is core's too.
 */
async function alternate(
  base: () => Promise<number>,
  subject: () => Promise<number>,
  opts: { iterations: number; rounds: number; warmup: number },
): Promise<{ base: Measurement; subject: Measurement }> {
  for (let i = 0; i < opts.warmup; i++) await base();
  for (let i = 0; i < opts.warmup; i++) await subject();
  const acc = () => ({ samples: [] as number[], cpu: 0, elapsed: 0 });
  const t = { base: acc(), subject: acc() };
  const per = Math.ceil(opts.iterations / opts.rounds);
  const run = async (fn: () => Promise<number>, into: ReturnType<typeof acc>): Promise<void> => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < per; i++) into.samples.push(await fn());
    into.elapsed += performance.now() - started;
    const used = process.cpuUsage(cpu);
    into.cpu += used.user + used.system;
  };
  for (let r = 0; r < opts.rounds; r++) {
    const [a, b] = r % 2 === 0 ? (['base', 'subject'] as const) : (['subject', 'base'] as const);
    await run(a === 'base' ? base : subject, t[a]);
    await run(b === 'base' ? base : subject, t[b]);
  }
  const of = (x: ReturnType<typeof acc>): Measurement => ({
    ...percentiles(x.samples),
    perSecond: (x.samples.length / x.elapsed) * 1000,
    cpuUsPerCall: x.cpu / Math.max(1, x.samples.length),
  });
  return { base: of(t.base), subject: of(t.subject) };
}

/** Polls (25 ms: finer than the fleet helper's 250 ms, which would round every figure) until `ok`. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 300_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Remote vs local in the same run (issue #29's bench): a whole Nexus with workspaces on the local
 * engine and on a second engine (a second dockerd behind sshd on 127.0.0.1; its workers reach Nexus
 * through that engine's leaf nats-server, which dials core through an SSH remote forward), each
 * figure alternating local and remote: workspace create → running; a real Claude Code session
 * created → its SessionStart at core; hook → `attention.changed` on /api/events, the hook posted
 * by the agent's side inside the container (to its hook relay); `memory.search` as the agent calls
 * it (through nexus-mcp in the container). The narrower hops (a hook event or a run's request at
 * the worker's NATS URL, from the host) are kept as extra rows. Needs root
 * (test/helpers/second-engine.ts). Goal: ≤ 1.2× on loopback SSH.
 */
const bench: Benchmark = async () => {
  const remote = await startRemoteFleet({
    workspace: 'there',
    engineName: 'far',
    pool: '10.203.0.0/16',
    config: { nats: { leafForwarder: FORWARDER } },
  });
  const { fleet } = remote;
  const closers: (() => Promise<void> | void)[] = [];
  const load = (): string => (loadavg()[0] ?? 0).toFixed(1);
  try {
    const there = await fleet.call('workspaces.get', { workspace: remote.workspace });
    const here = await fleet.createWorkspace('here', { engine: 'local' });
    const platform = fleet.running.core.platform;
    const loadAtStart = load();
    // The remote engine's leaf starts with its first session; timed on its own, outside the figures.
    const leafStarted = performance.now();
    const leafUrl = await platform.workerUrl(there.id);
    const leafStartMs = Math.round(performance.now() - leafStarted);

    // Workspace create → running (the image is on both engines already: the two above made sure).
    let made = 0;
    const createIn = (engine: string) => async () => {
      const name = `w${made++}-${randomBytes(2).toString('hex')}`;
      const t = performance.now();
      await fleet.call('workspaces.create', { name, repoUrl: fleet.env.repo.url, engine });
      const w = await until(
        () => fleet.call('workspaces.get', { workspace: name }),
        (x) => x.status === 'running' || x.status === 'error',
        `workspace ${name}`,
      );
      const ms = performance.now() - t;
      if (w.status !== 'running') throw new Error(`workspace ${name}: ${w.status} ${w.reason ?? ''}`);
      await fleet.call('workspaces.delete', { workspace: name });
      return ms;
    };
    const creates = await alternate(createIn('local'), createIn('far'), {
      iterations: WORKSPACES,
      rounds: WORKSPACES,
      warmup: 0,
    });

    // Session create → SessionStart (the first hook event core applies). Where the time went: the
    // runtime's execs in each start, counted and timed (core runs in this process).
    const execs = { here: { n: 0, ms: 0, starts: 0 }, there: { n: 0, ms: 0, starts: 0 } };
    let counting: keyof typeof execs | null = null;
    const kinds = { here: new Map<string, number>(), there: new Map<string, number>() };
    const exec = WorkspaceRuntime.prototype.exec;
    WorkspaceRuntime.prototype.exec = async function (this: WorkspaceRuntime, ...args) {
      const into = counting;
      const t = performance.now();
      try {
        return await exec.apply(this, args);
      } finally {
        if (into) {
          execs[into].n++;
          execs[into].ms += performance.now() - t;
          const argv = args[1];
          const what = argv[0] === 'sh' ? `sh:${(argv[2] ?? '').trim().split(/\s+/)[0] ?? ''}` : (argv[0] ?? '');
          kinds[into].set(what, (kinds[into].get(what) ?? 0) + 1);
        }
      }
    };
    closers.push(() => void (WorkspaceRuntime.prototype.exec = exec));
    const last = new Map<string, string>();
    const containerOf = { here: here.containerId!, there: there.containerId! };
    const hostOf = { here: null, there: `unix://${remote.engine.socket}` };
    // Of each start, Nexus's part: create → the agent's process started (the CLI's own part follows).
    const nexusPart = { here: [] as number[], there: [] as number[] };
    const startIn = (ws: 'here' | 'there') => async () => {
      counting = ws;
      execs[ws].starts++;
      const t = performance.now();
      const s = await fleet.createSession(ws, { name: `b-${randomBytes(3).toString('hex')}`, initialMessage: 'hi' });
      await until(
        () => fleet.call('sessions.get', { session: s.id }),
        (x) => x.agentStateAt !== null || x.status === 'error',
        `session ${s.name}`,
        240_000,
      );
      const ms = performance.now() - t;
      last.set(ws, s.id);
      counting = null;
      const started = await agentStartedAt(containerOf[ws], hostOf[ws], s.id);
      if (started !== null) nexusPart[ws].push(started - t);
      return ms;
    };
    const starts = await alternate(startIn('here'), startIn('there'), { iterations: SESSIONS, rounds: 2, warmup: 0 });
    // Let the sessions' first turns settle (they answer "hi"), so the hooks below are the only ones.
    for (const ws of ['here', 'there'])
      await fleet.waitForSession(last.get(ws)!, (s) => s.agentState === 'idle' || s.agentState === 'waiting_input');

    // Hook → attention.changed on /api/events, from the agent's side in the container.
    const host = fleet.running.host;
    const arrivals: ((at: bigint) => void)[] = [];
    const sse = request(
      {
        host: '127.0.0.1',
        port: Number(new URL(host.url).port),
        path: '/api/events',
        headers: { host: new URL(host.url).host, authorization: `Bearer ${host.token}` },
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => {
          const at = process.hrtime.bigint();
          text += chunk;
          let end: number;
          while ((end = text.indexOf('\n\n')) >= 0) {
            const frame = text.slice(0, end);
            text = text.slice(end + 2);
            if (frame.includes('event: attention.changed')) arrivals.shift()?.(at);
          }
        });
      },
    );
    sse.end();
    closers.push(() => void sse.destroy());
    await new Promise((r) => setTimeout(r, 500));
    const drivers = {
      here: startDriver(containerOf.here, hostOf.here),
      there: startDriver(containerOf.there, hostOf.there),
    };
    closers.push(
      () => drivers.here.close(),
      () => drivers.there.close(),
    );
    const flips = { here: 0, there: 0 };
    const hookIn = (ws: 'here' | 'there') => async () => {
      const ask = flips[ws]++ % 2 === 0;
      const hook = ask
        ? {
            hook_event_name: 'Notification',
            notification_type: 'permission_prompt',
            message: 'Claude needs your permission to use Bash',
          }
        : { hook_event_name: 'UserPromptSubmit', prompt: 'go on' };
      const arrived = new Promise<bigint>((r) => arrivals.push(r));
      const fired = await drivers[ws].send({ hook, port: RELAY_PORT, session: last.get(ws) });
      if (fired.status !== 200) throw new Error(`the hook relay in ${ws} answered ${fired.status}`);
      const at = await Promise.race([
        arrived,
        new Promise<never>((_, no) => setTimeout(() => no(new Error(`no attention.changed for ${ws}`)), 30_000)),
      ]);
      return Number(at - BigInt(fired.t!)) / 1e6;
    };
    const attention = await alternate(hookIn('here'), hookIn('there'), { iterations: HOOKS, rounds: 4, warmup: 4 });

    // memory.search as the agent calls it: nexus-mcp in the container, with a run of the workspace's agent.
    const mcpIn = async (ws: 'here' | 'there', workspaceId: string) => {
      const agent = await fleet.call('agents.forWorkspace', { workspace: ws });
      const creds = await platform.createRun(agent.id);
      const env = nexusMcpEnv(creds, { natsUrl: await platform.workerUrl(workspaceId) });
      await drivers[ws].send({ mcp: { command: NEXUS_MCP, env } });
      return async () => (await drivers[ws].send({ search: true })).ms!;
    };
    const mcp = await alternate(await mcpIn('here', here.id), await mcpIn('there', there.id), {
      iterations: CALLS,
      rounds: 4,
      warmup: 20,
    });

    // The narrower hops, from the host: a hook event at the worker's NATS URL → core's hook handler.
    const waiters = new Map<string, () => void>();
    const sub = platform.onHookEvent((e) => {
      const marker = (e.event as { bench?: string } | null)?.bench;
      if (marker) waiters.get(marker)?.();
    });
    closers.push(() => void sub.dispose());
    const hookFrom = async (workspaceId: string) => {
      const c = await platform.createHookPublisher(workspaceId);
      const nc = await connect({ servers: c.natsUrl, ...userAuth(c.password ?? '') });
      closers.push(() => nc.close());
      return async () => {
        const marker = randomBytes(6).toString('hex');
        const arrived = new Promise<void>((r) => waiters.set(marker, r));
        nc.publish(c.subject, JSON.stringify({ hook_event_name: 'Notification', bench: marker }));
        await arrived;
        waiters.delete(marker);
      };
    };
    const hooks = await measurePair(await hookFrom(here.id), await hookFrom(there.id), {
      iterations: CALLS,
      concurrency: 1,
      rounds: 4,
      warmup: 20,
    });
    // …and memory.search by a run at its worker's NATS URL, from the host.
    const searchFrom = async (ws: string, workspaceId: string) => {
      const agent = await fleet.call('agents.forWorkspace', { workspace: ws });
      const creds = await platform.createRun(agent.id);
      const client = await connectRun({ ...creds, natsUrl: await platform.workerUrl(workspaceId) });
      closers.push(() => client.close());
      return async () => {
        const r = await client.call('memory.search', { query: 'deploys' });
        if ('error' in r) throw new Error(r.error.message);
      };
    };
    const searches = await measurePair(await searchFrom('here', here.id), await searchFrom('there', there.id), {
      iterations: CALLS,
      concurrency: 1,
      rounds: 4,
      warmup: 20,
    });
    const extra = { forwarder: FORWARDER, load: `${loadAtStart}→${load()}` };

    return [
      {
        ...compare(
          'workspace create → running on a remote engine',
          'the same on the local engine',
          creates.subject,
          creates.base,
          '≤ 1.2×',
        ),
        extra,
      },
      {
        ...compare(
          'session create → SessionStart on a remote engine (hooks through its leaf node)',
          'the same on the local engine',
          starts.subject,
          starts.base,
          '≤ 1.2×',
        ),
        extra: {
          ...extra,
          leafStartMs,
          execsPerStart: localRemote((e) => (execs[e].n / execs[e].starts).toFixed(1)),
          nexusPartP50Ms: localRemote((e) => Math.round(percentiles(nexusPart[e]).p50Ms)),
          execKinds: `local ${JSON.stringify(Object.fromEntries(kinds.here))}, remote ${JSON.stringify(Object.fromEntries(kinds.there))}`,
          execMsPerStart: localRemote((e) => Math.round(execs[e].ms / execs[e].starts)),
        },
      },
      {
        ...compare(
          'hook (posted by the agent side in the container) → attention.changed on /api/events, remote engine',
          'the same on the local engine',
          attention.subject,
          attention.base,
          '≤ 1.2×',
        ),
        extra,
      },
      {
        ...compare(
          'memory.search as the agent calls it (nexus-mcp in the container), remote engine',
          'the same on the local engine',
          mcp.subject,
          mcp.base,
          '≤ 1.2×',
        ),
        extra,
      },
      {
        ...compare(
          'hop: hook event at the worker’s NATS URL → core’s hook handler (leaf → SSH forward → hub)',
          'the same at core’s server (local engine)',
          hooks.subject,
          hooks.base,
          '—',
        ),
        extra: { ...extra, leaf: leafUrl },
      },
      {
        ...compare(
          'hop: memory.search by a run at its worker’s NATS URL, from the host',
          'the same from a run on the local engine',
          searches.subject,
          searches.base,
          '—',
        ),
        extra,
      },
    ];
  } finally {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => undefined);
    // The figures stand though the fleet's cleanup fail (the second engine goes whatever it did).
    await remote.dispose().catch(() => undefined);
  }
};
export default bench;

/** One figure of both engines, as the summary prints it. */
const localRemote = (of: (engine: 'here' | 'there') => string | number): string =>
  `${of('here')} local, ${of('there')} remote`;
