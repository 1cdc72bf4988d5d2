/**
 * Platform tools over NATS: memory.search over 100,000 memories and board.comment, request/reply
 * at 64 in flight, each compared to a raw NATS echo responder on the same managed server in the
 * same run. Targets (printed, never asserted): p50 <= 3x the raw echo, >= 8,000 calls/s.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { createCore } from '../main/core';
import { userAuth } from '../main/core/platform/nats/auth';
import { NatsIdentity } from '../main/core/platform/nats/identity';
import { coreGrant } from '../main/core/platform/permissions';
import { connectRun } from '../test/helpers/run-client';
import { MemoryStore } from '../main/core/platform/review/memory-store';
import { nodePorts } from '../main/host/node-ports';
import { compare, measure, type Benchmark, type Measurement } from './lib';
import { coreDb } from '../test/helpers/core';

const MEMORIES = 100_000;
const opts = { iterations: 10_000, concurrency: 64, warmup: 500 };
const target = 'p50 <= 3x raw echo, >= 8,000 calls/s';

/** CPU time (user + system) a process has used so far, in µs, from /proc (Linux). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A deterministic vocabulary of 10,000 made-up words, so each query matches a few dozen memories. */
function vocabulary(): string[] {
  const syl = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'sa',
    'ti',
    'vo',
    'ze',
    'pa',
    'qu',
    'de',
    'fo',
    'gi',
    'hu',
    'jo',
    'be',
    'xa',
    'wy',
    'co',
    'ly',
    'mo',
  ];
  const words: string[] = [];
  for (const a of syl) for (const b of syl) for (const c of syl) if (words.length < 10_000) words.push(`${a}${b}${c}`);
  return words;
}

const bench: Benchmark = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-bench-nats-'));
  const core = await createCore({ version: 'bench' }, nodePorts(dataDir, process.cwd()));
  try {
    if (core.status.get().nats.state !== 'running')
      throw new Error(`NATS is not running: ${core.status.get().nats.reason}`);
    const words = vocabulary();
    let seed = 42;
    const rand = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 8) % n);
    const insert = coreDb(core).prepare(
      "INSERT INTO memories (uid, content, scope, status, created_at) VALUES (?, ?, 'global', 'active', ?)",
    );
    const now = new Date().toISOString();
    // Recall-style queries: two words that occur together in one stored memory.
    const queries: string[] = [];
    coreDb(core).transaction(() => {
      for (let i = 0; i < MEMORIES; i++) {
        const memory = Array.from({ length: 12 }, () => words[rand(words.length)] ?? '');
        insert.run(`bench-${i}`, memory.join(' '), now);
        if (i % 100 === 0) queries.push(`${memory[1]} ${memory[7]}`);
      }
    })();
    // The seed bypasses the store; merge the index as core does at start, so it is the index at rest.
    new MemoryStore(coreDb(core)).compact();

    const agent = core.platform.createAgent({ name: 'bench' });
    const task = core.platform.createTask({ title: 'bench' });
    const creds = await core.platform.createRun(agent.id, task.id);
    const client = await connectRun(creds);

    // Raw baseline: a bare echo responder and client on the same server, authenticated as core.
    // A user with core's grant, signed with the data dir's own identity (the server trusts it).
    const coreUser = NatsIdentity.open(join(dataDir, 'nats')).issue(coreGrant, null);
    const echoSide = await connect({ servers: creds.natsUrl, ...userAuth(coreUser.password) });
    echoSide.subscribe('bench.echo', { callback: (_e, m) => void m.respond(m.data) });
    await echoSide.flush();
    const callerSide = await connect({
      servers: creds.natsUrl,
      ...userAuth(coreUser.password),
      noAsyncTraces: true,
    });
    const echoPayload = JSON.stringify({ tool: 'memory.search', args: { query: 'kalomi sarutu' } });

    // This process holds core, the run's client and the echo; nats-server is the other process on the CPUs.
    const serverPid = Number(readFileSync(join(dataDir, 'nats', 'nats.pid'), 'utf8').trim());
    const measured = async (fn: () => Promise<unknown>): Promise<[Measurement, number]> => {
      const before = cpuUs(serverPid);
      const m = await measure(fn, opts);
      return [m, Math.round((cpuUs(serverPid) - before) / (m.n + opts.warmup))];
    };
    try {
      const [base, baseServer] = await measured(() =>
        callerSide.request('bench.echo', echoPayload, { timeout: 10_000 }),
      );
      let q = 0;
      const [search, searchServer] = await measured(async () => {
        const reply = await client.call('memory.search', { query: queries[q++ % queries.length], limit: 10 });
        if ('error' in reply) throw new Error(reply.error.message);
      });
      const [comment, commentServer] = await measured(async () => {
        const reply = await client.call('board.comment', { body: 'progress: step done' });
        if ('error' in reply) throw new Error(reply.error.message);
      });
      const server = (subject: number) => ({ natsServerCpuUsPerCall: subject, echoNatsServerCpuUsPerCall: baseServer });
      return [
        {
          ...compare(
            `nats memory.search (${MEMORIES.toLocaleString('en')} memories, 64 in flight)`,
            'raw NATS echo',
            search,
            base,
            target,
          ),
          extra: server(searchServer),
        },
        {
          ...compare('nats board.comment (64 in flight)', 'raw NATS echo', comment, base, target),
          extra: server(commentServer),
        },
      ];
    } finally {
      await client.close();
      await echoSide.close();
      await callerSide.close();
    }
  } finally {
    await core.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
export default bench;
