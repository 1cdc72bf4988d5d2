import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../shared/contract/sessions';
import { dockerExec } from '../../../test/helpers/agent-cli';
import { tearDownCrashedCore } from '../../../test/helpers/crashed-core-teardown';
import { readDb, runningWorkspace, startNexusProcess, type NexusProcess } from '../../../test/helpers/nexus-process';
import { giveAgentCredential, startRealAgentEnv, type RealAgentEnv } from '../../../test/helpers/real-agent-env';
import { tempDir } from '../../../test/helpers/temp-dir';
import { readUntil } from '../../../test/helpers/wait';

// Issue 40, the ledger's durability: each answer's row is committed before the answer's end goes on to the agent
// (usage-store.ts record, gateway-server.ts). A core `kill -9` under a stream of answered model requests loses no
// answer the client received whole, and the ledger never counts one twice, before or after the restart. Each request
// names its own model, which the stand-in echoes and the ledger keeps, so every row is matched to the request it counts.

const dir = tempDir('nexus-ledger-kill-');
const dataDir = join(dir.path, 'data');
const workspace = `ledger-kill-${process.pid}`;
let env: RealAgentEnv;
let nexus: NexusProcess;
let sessionId = '';
let credential = '';

beforeAll(async () => {
  env = await startRealAgentEnv();
  nexus = await startNexusProcess(dataDir, env.env);
  await nexus.rpc('vault.init', {});
  await giveAgentCredential((op, input) => nexus.rpc(op, input), env.canary);
  const containerId = await runningWorkspace(nexus, workspace, env.repo.url);
  // A session's gateway credential is written with its launch; the test speaks with it as its CLI would.
  sessionId = (await nexus.rpc<Session>('sessions.create', { workspace, name: 'ledger' })).id;
  credential = await readUntil(
    async () => (await dockerExec(containerId, ['cat', `/tmp/nexus-sessions/${sessionId}/gateway-key`])).stdout.trim(),
    (k) => k.startsWith('nxg_'),
    120_000,
  );
}, 600_000);

afterAll(async () => {
  await tearDownCrashedCore(nexus, dataDir, workspace);
  await env?.close();
  dir.remove();
}, 180_000);

/** One streamed Messages request through core's gateway naming `model`; resolves when its answer has ended. */
function ask(model: string): Promise<number> {
  const port = readFileSync(join(dataDir, 'gateway-port'), 'utf8').trim();
  const body = JSON.stringify({ model, max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  return new Promise((resolve, reject) => {
    const q = request(
      `http://${env.gateway}:${port}/claude/v1/messages`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': credential } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(Date.now()) : reject(new Error(`${res.statusCode}`))));
        res.on('error', reject);
      },
    );
    q.on('error', reject);
    q.end(body);
  });
}

/** The ledger's rows of the probe's models, as the database holds them. */
const rows = (): { model: string; n: number }[] =>
  readDb(
    dataDir,
    (db) =>
      db.prepare("SELECT model, COUNT(*) AS n FROM model_usage WHERE model LIKE 'probe-%' GROUP BY model").all() as {
        model: string;
        n: number;
      }[],
  );

describe('the usage ledger across a core kill -9', () => {
  it('loses no answer the client received whole, and counts none twice before or after the restart', async () => {
    // Two streams of requests, each answered at once; core is killed while they run.
    const ended = new Map<string, number>();
    let stop = false;
    let seq = 0;
    const stream = async (): Promise<void> => {
      while (!stop) {
        const model = `probe-${String(++seq).padStart(5, '0')}`;
        const at = await ask(model).catch(() => null);
        if (at !== null) ended.set(model, at);
      }
    };
    const streams = [stream(), stream()];
    await readUntil(
      () => Promise.resolve(ended.size >= 40),
      (ready) => ready,
      60_000,
    );
    await nexus.kill('SIGKILL');
    stop = true;
    await Promise.all(streams);

    const kept = rows();
    // Nothing counted twice, and nothing counted that was not asked.
    expect(kept.every((r) => r.n === 1)).toBe(true);
    const keptModels = new Set(kept.map((r) => r.model));
    expect([...keptModels].every((m) => m.startsWith('probe-') && Number(m.slice(6)) <= seq)).toBe(true);
    // Every answer that ended at the client is counted; at most the two in flight at the kill were counted without
    // their end arriving (the row is written first), which the client's retry would be counted beside, as the
    // provider answered both.
    const lost = [...ended.keys()].filter((m) => !keptModels.has(m));
    expect(lost).toEqual([]);
    expect(keptModels.size - ended.size).toBeLessThanOrEqual(2);
    expect(ended.size).toBeGreaterThanOrEqual(40);

    // The restarted core (same port, the credential in the database) counts new answers once each, and the lost
    // ones stay lost: nothing is replayed.
    nexus = await startNexusProcess(dataDir, env.env);
    for (let i = 1; i <= 10; i++) await ask(`probe-after-${i}`);
    const after = await readUntil(
      () => Promise.resolve(rows()),
      (r) => r.filter((x) => x.model.startsWith('probe-after-')).length === 10,
      10_000,
    );
    expect(after.every((r) => r.n === 1)).toBe(true);
    expect(after.length).toBe(kept.length + 10);
    const totals = await nexus.rpc<{ totals: { requests: number } }>('usage.get', { session: sessionId });
    expect(totals.totals.requests).toBeGreaterThanOrEqual(after.length);
  }, 300_000);
});
