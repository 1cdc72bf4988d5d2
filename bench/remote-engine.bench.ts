import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import type Docker from 'dockerode';
import { Client } from 'ssh2';
import { copyImage } from '../main/core/engines/engine-copies';
import { onPath } from '../main/core/engines/programs';
import { createLogger } from '../main/core/log';
import { Redactor } from '../main/core/redact';
import { openStore } from '../main/core/store/open';
import { WorkspaceRuntime } from '../main/core/workspaces/runtime';
import { WorkspaceStore } from '../main/core/workspaces/workspace-store';
import { realDocker, testBaseImage } from '../test/helpers/docker';
import { linkToSecondEngine, startSecondEngine } from '../test/helpers/second-engine';
import { tempDir } from '../test/helpers/temp-dir';
import { compare, measure, measurePair, type Benchmark } from './lib';

const ITERATIONS = Number(process.env.NEXUS_BENCH_REMOTE_EXECS ?? 60);
const ROUND_TRIPS = Number(process.env.NEXUS_BENCH_FORWARD_TRIPS ?? 2000);
/** About a NATS message with its headers (a hook event, a small tool call). */
const MESSAGE = Buffer.alloc(300, 'x');

/** An echo server on this machine's 127.0.0.1: what the hub is to the leaf link. */
async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer({ noDelay: true }, (s) => s.pipe(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

/** One message there and back through a forwarded port (the leaf's side: the remote host's 127.0.0.1). */
async function roundTripper(port: number): Promise<{ trip: () => Promise<void>; socket: Socket }> {
  const socket = tcpConnect({ host: '127.0.0.1', port, noDelay: true });
  await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
  let want = 0;
  let done: () => void = () => undefined;
  socket.on('data', (d: Buffer) => {
    want -= d.length;
    if (want <= 0) done();
  });
  return {
    socket,
    trip: () =>
      new Promise<void>((r) => {
        want = MESSAGE.length;
        done = r;
        socket.write(MESSAGE);
      }),
  };
}

/** ssh2's own remote forward with one cipher (what SshConnection does, its cipher list narrowed to one). */
async function ssh2Forward(
  remote: { sshPort: number; privateKey: string },
  to: number,
  cipher: string,
): Promise<{ port: number; close: () => void }> {
  const c = new Client();
  c.on('tcp connection', (_info, accept) => {
    const local = tcpConnect({ host: '127.0.0.1', port: to, noDelay: true });
    const ch = accept();
    pipeline(ch, local, ch, () => undefined);
  });
  await new Promise<void>((ok, fail) => {
    c.once('ready', ok).once('error', fail);
    c.connect({
      sock: tcpConnect({ host: '127.0.0.1', port: remote.sshPort, noDelay: true }),
      username: 'root',
      privateKey: remote.privateKey,
      algorithms: { cipher: [cipher as 'aes128-gcm@openssh.com'] },
      hostVerifier: () => true, // the bench's own sshd; the product path pins (SshConnection)
    });
  });
  const port = await new Promise<number>((ok, fail) =>
    c.forwardIn('127.0.0.1', 0, (err, bound) => (err ? fail(err) : ok(bound))),
  );
  return { port, close: () => c.end() };
}

/** User + system CPU µs of a process and its children's threads so far (/proc; 10 ms ticks). */
function cpuUsOf(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids)
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone
    }
  return ticks * 10_000;
}

const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

async function sleeper(docker: Docker, image: string): Promise<Docker.Container> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['sleep', 'infinity'],
    Labels: { 'nexus.bench': `remote-${randomBytes(3).toString('hex')}` },
    HostConfig: { NetworkMode: 'none' },
  });
  await c.start();
  return c;
}

/**
 * One `exec` (`true`, output read, exit code inspected: what every runtime step costs) through the
 * WorkspaceRuntime on a remote engine — a second dockerd on this machine behind sshd on 127.0.0.1,
 * reached over Nexus's one persistent SSH connection (forwarded socket) — against the same exec on
 * the local engine in the same run. Needs root (test/helpers/second-engine.ts). Goal (issue #29):
 * ≤ 1.2× on loopback SSH.
 */
const bench: Benchmark = async () => {
  const remote = await startSecondEngine({ pool: '10.202.0.0/16' });
  const dir = tempDir('nexus-bench-remote-');
  const local = realDocker();
  const image = testBaseImage();
  const link = linkToSecondEngine(remote, 'bench');
  const db = openStore(join(dir.path, 'bench.db'));
  const containers: Docker.Container[] = [];
  try {
    await copyImage(local, remote.docker, image, () => undefined, 'bench');
    const here = await sleeper(local, image);
    containers.push(here);
    const there = await sleeper(remote.docker, image);
    containers.push(there);
    const runtime = new WorkspaceRuntime({ docker: local, dockerOf: () => link.docker, store: new WorkspaceStore(db) });
    const exec = (containerId: string, engine: string) => async () => {
      const r = await runtime.exec({ name: 'bench', containerId, engine }, ['true']);
      if (r.exitCode !== 0) throw new Error(`exec exited ${r.exitCode}`);
    };
    const opts = { iterations: ITERATIONS, concurrency: 1, warmup: 5 };
    const base = await measure(exec(here.id, 'local'), opts);
    const subject = await measure(exec(there.id, 'bench'), opts);
    const figure = compare(
      'one exec on a remote engine over one SSH connection (loopback)',
      'the same exec on the local engine (unix socket)',
      subject,
      base,
      '≤ 1.2×',
    );
    figure.extra = { sshConnections: link.ssh?.connects ?? 0 };

    // The leaf link's forward alone: one 300-byte message from the remote host's loopback to an
    // echo server on core's 127.0.0.1 and back, through each forwarder, against the same round trip
    // straight over loopback TCP. CPU per call is this (core's) process; OpenSSH's own is an extra.
    const echo = await echoServer();
    const direct = await roundTripper(echo.port);
    const trips = { iterations: ROUND_TRIPS, concurrency: 1, rounds: 4, warmup: 200 };
    const figures = [figure];
    const closers: (() => void)[] = [() => direct.socket.destroy(), () => echo.server.close()];
    try {
      const forwarded = async (name: string, port: number, extraPids: () => number[] = () => []) => {
        const rt = await roundTripper(port);
        closers.push(() => rt.socket.destroy());
        const pids = extraPids();
        const before = cpuUsOf(pids);
        const m = await measurePair(direct.trip, rt.trip, trips);
        const f = compare(name, 'the same round trip over loopback TCP (alternating)', m.subject, m.base, '—');
        if (pids.length)
          f.extra = { sshCpuUsPerCall: Math.round((cpuUsOf(pids) - before) / (ROUND_TRIPS + trips.warmup)) };
        figures.push(f);
      };
      const viaProduct = await link.ssh!.forwardIn({ host: '127.0.0.1', port: echo.port });
      await forwarded('leaf link forward: ssh2 on core’s connection (aes128-gcm, the product’s)', viaProduct);
      for (const cipher of ['chacha20-poly1305@openssh.com', 'aes128-ctr']) {
        const f = await ssh2Forward(remote, echo.port, cipher);
        closers.push(f.close);
        await forwarded(`leaf link forward: ssh2, ${cipher}`, f.port);
      }
      const ssh = onPath('ssh');
      const log = createLogger({ redactor: new Redactor() });
      const [viaOpenSsh] = await link.ssh!.forwardInOpenSsh([{ host: '127.0.0.1', port: echo.port }], ssh, log);
      const wrapper = link.ssh!.openSshForwards[0]?.pid ?? 0;
      await forwarded('leaf link forward: OpenSSH ssh -N -R (child process)', viaOpenSsh!, () => [
        wrapper,
        ...childrenOf(wrapper),
      ]);
    } finally {
      for (const c of closers.reverse()) c();
    }
    return figures;
  } finally {
    for (const c of containers) await c.remove({ force: true }).catch(() => undefined);
    link.dispose();
    db.close();
    dir.remove();
    await remote.dispose();
  }
};
export default bench;
