// The preview bench's client, in a worker thread of its own: so the proxy (in the bench's main thread, as it is in
// core) does not share an event loop with the load it serves, as a browser's requests do not share core's.
// Plain JS (a worker thread gets no tsx). Runs `mode` against the two targets in alternating rounds and posts
// each side's latency samples (ms) and busy time.
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';

const { mode, base, subject, iterations, rounds, warmup } = workerData;
const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });
const fresh = new Agent({ keepAlive: false });
const sockets = [];

const get = (t, path, agent, whole) =>
  new Promise((resolve, reject) => {
    const req = request({ host: t.host, port: t.port, path, agent, headers: { host: t.hostHeader } }, (res) => {
      if (!whole) {
        res.resume();
        return resolve();
      }
      res.on('data', () => undefined);
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });

async function socket(t) {
  const ws = new WebSocket(`ws://${t.host}:${t.port}/hmr`, { headers: { host: t.hostHeader } });
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('error', reject);
  });
  return {
    once: () =>
      new Promise((resolve) => {
        ws.once('message', resolve);
        ws.send('saved src/app.tsx');
      }),
    close: () => ws.close(),
  };
}

async function op(t) {
  if (mode === 'ttfb') return () => get(t, '/', keepAlive, false);
  if (mode === 'big') return () => get(t, '/big', keepAlive, true);
  if (mode === 'fresh') return () => get(t, '/', fresh, false);
  const s = await socket(t);
  sockets.push(s);
  return s.once;
}

const fns = { base: await op(base), subject: await op(subject) };
for (let i = 0; i < warmup; i++) {
  await fns.base();
  await fns.subject();
}
const out = { base: { samples: [], elapsed: 0 }, subject: { samples: [], elapsed: 0 } };
const per = Math.ceil(iterations / rounds);
const run = async (side) => {
  const started = performance.now();
  for (let i = 0; i < per; i++) {
    const t = performance.now();
    await fns[side]();
    out[side].samples.push(performance.now() - t);
  }
  out[side].elapsed += performance.now() - started;
};
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['base', 'subject'] : ['subject', 'base'];
  for (const side of order) await run(side);
}
keepAlive.destroy();
for (const s of sockets) s.close();
parentPort.postMessage(out);
