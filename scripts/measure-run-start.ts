/**
 * Run start and end through core's managed nats-server (`core.platform.createRun` / `endRun`):
 * one at a time (40), 20 at once (5 batches), and ends (10). Prints p50/p95 in ms. Used for the
 * before → after figures of the JWT identity in docs/performance.md (run the same script on the
 * code before, with its node_modules), and the CPU per run started in a batch: core's and nats-server's. `scripts/with-keychain.sh node --import tsx scripts/measure-run-start.ts`
 */
import { readFileSync } from 'node:fs';
import { platformFixture } from '../test/helpers/platform-fixture';
const f = await platformFixture();
const agent = f.core.platform.createAgent({ name: 'bench' });
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];
const single: number[] = [];
for (let i = 0; i < 40; i++) {
  const t = performance.now();
  await f.core.platform.createRun(agent.id);
  single.push(performance.now() - t);
}
/** CPU µs used so far by this process (core) and by the nats-server child (10 ms ticks, from /proc). */
const cpu = (): { core: number; server: number } => {
  const u = process.cpuUsage();
  const pid = f.core.platform.serverPid;
  const fields = pid ? (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []) : [];
  return { core: u.user + u.system, server: (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10_000 };
};
const batch: number[] = [];
const before = cpu();
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  await Promise.all(Array.from({ length: 20 }, () => f.core.platform.createRun(agent.id)));
  batch.push(performance.now() - t);
}
const after = cpu();
const perRunCpu = { coreUs: (after.core - before.core) / 100, serverUs: (after.server - before.server) / 100 };
const ends: number[] = [];
for (let i = 0; i < 10; i++) {
  const r = await f.core.platform.createRun(agent.id);
  const t = performance.now();
  await f.core.platform.endRun(r.runId);
  ends.push(performance.now() - t);
}
console.log(
  JSON.stringify({
    singleP50: q(single, 0.5),
    singleP95: q(single, 0.95),
    batch20P50: q(batch, 0.5),
    endP50: q(ends, 0.5),
    perRunCpu,
  }),
);
await f.cleanup();
process.exit(0);
