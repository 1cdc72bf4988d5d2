import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { DelegationChoice, OpInput, OpName, OpOutput } from '../../shared/contract';
import type { CoreConfigInput } from '../../main/core/config';
import { subjects } from '../../shared/platform-tools';
import { linkTo, type EngineLink } from '../../main/core/engines/engine-link';
import { runUserName } from '../../main/core/platform/permissions';
import type { RunCredentials } from '../../main/core/platform/platform-service';
import { startRealAgentFleet, type RealAgentFleet } from './real-agent-fleet';
import { readUntil, waitFor } from './wait';
import { freePort } from './free-port';

/**
 * A second Docker engine on this machine, reached over SSH on loopback — what a remote engine is,
 * made by the test (Docker's "run multiple daemons" recipe). Needs root: it starts a dockerd (own
 * --data-root, a short --exec-root for containerd's socket, --pidfile, a unix socket,
 * `--bridge=none --iptables=false`, the local engine's storage driver, its own address pool and
 * containerd namespaces) and Debian's sshd on 127.0.0.1 with its own host key, config and an
 * authorized key for root, whose sessions get `DOCKER_HOST` pointing at the second daemon (for
 * `docker system dial-stdio`). `dispose()` kills both and removes every file.
 */
export interface SecondEngine {
  /** The second daemon's socket on this machine (the test's own look at it). */
  socket: string;
  /** A client straight to the second daemon (not through SSH). */
  docker: Docker;
  sshPort: number;
  /** The private key (OpenSSH format) that signs in as root. */
  privateKey: string;
  /** `ssh-keygen -lf` of the current host key: `SHA256:…`. */
  hostKey(): string;
  /** ssh://root@127.0.0.1:<port>?socket=<the second daemon's socket> */
  url: string;
  /** Same host, the Docker API through `docker system dial-stdio` (the session's DOCKER_HOST). */
  dialStdioUrl: string;
  /** With `tls: true`: the daemon also on tcp://127.0.0.1:<port> with --tlsverify, and the PEMs a client needs. */
  tls: { url: string; ca: string; cert: string; key: string } | null;
  /** Public-key logins sshd accepted so far (each is one SSH connection). */
  logins(): number;
  /** Kills every SSH connection (sshd's per-connection processes); the listener stays. */
  cutConnections(): void;
  /** sshd again on the same port with a new host key. */
  rotateHostKey(): Promise<void>;
  /** Stops the second dockerd (its containers stop) and starts it again. */
  restartDaemon(): Promise<void>;
  dispose(): Promise<void>;
}

const fingerprint = (pubFile: string): string =>
  (execFileSync('ssh-keygen', ['-lf', pubFile], { encoding: 'utf8' }).split(' ')[1] ?? '').trim();

export async function startSecondEngine(opts: { pool?: string; tls?: boolean } = {}): Promise<SecondEngine> {
  if (process.getuid?.() !== 0) throw new Error('the second engine needs root (dockerd and sshd)');
  // Short: containerd's socket lives under the exec root and unix socket paths stop at 108 bytes.
  const base = mkdtempSync('/tmp/nxe-');
  const socket = join(base, 'docker.sock');
  const sshDir = join(base, 'ssh');
  mkdirSync(sshDir, { mode: 0o700 });
  mkdirSync('/run/sshd', { recursive: true });
  writeFileSync(join(base, 'daemon.json'), '{}\n');
  const log = join(base, 'dockerd.log');
  const sshLog = join(base, 'sshd.log');
  let dockerd: ChildProcess | null = null;
  const tls = opts.tls ? { port: await freePort(), ...makeTlsMaterial(join(base, 'tls')) } : null;
  let sshd: ChildProcess | null = null;
  const suffix = base
    .slice(-6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');

  // The machine's own engine's storage driver (scripts/provision.sh: overlay2 where the kernel mounts it, else vfs).
  const driver = ((await new Docker().info()) as { Driver: string }).Driver;
  const startDaemon = async (): Promise<void> => {
    dockerd = spawn(
      'dockerd',
      [
        '--config-file',
        join(base, 'daemon.json'),
        '--data-root',
        join(base, 'data'),
        '--exec-root',
        join(base, 'x'),
        '--pidfile',
        join(base, 'docker.pid'),
        '-H',
        `unix://${socket}`,
        '--bridge=none',
        '--iptables=false',
        '--ip-masq=false',
        `--storage-driver=${driver}`,
        '--default-address-pool',
        `base=${opts.pool ?? '10.201.0.0/16'},size=24`,
        '--containerd-namespace',
        `nx${suffix}`,
        '--containerd-plugins-namespace',
        `nx${suffix}p`,
        '--cgroup-parent',
        `nx${suffix}`,
        ...(tls
          ? [
              '-H',
              `tcp://127.0.0.1:${tls.port}`,
              '--tlsverify',
              '--tlscacert',
              tls.files.ca,
              '--tlscert',
              tls.files.serverCert,
              '--tlskey',
              tls.files.serverKey,
            ]
          : []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], detached: false },
    );
    dockerd.stderr?.on('data', (d: Buffer) => writeFileSync(log, d, { flag: 'a' }));
    const client = new Docker({ socketPath: socket });
    await waitFor(
      () =>
        client.ping().then(
          () => true,
          () => false,
        ),
      `the second dockerd to answer (see ${log})`,
      60_000,
    );
  };

  const stopDaemon = async (): Promise<void> => {
    const p = dockerd;
    dockerd = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    p.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    if (p.exitCode === null) p.kill('SIGKILL');
  };

  const sshPort = await freePort();
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'nexus-test', '-f', join(sshDir, 'client')]);
  writeFileSync(join(sshDir, 'authorized_keys'), readFileSync(join(sshDir, 'client.pub')), { mode: 0o600 });
  const newHostKey = (): void => {
    rmSync(join(sshDir, 'host'), { force: true });
    rmSync(join(sshDir, 'host.pub'), { force: true });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'host')]);
  };
  newHostKey();
  writeFileSync(
    join(sshDir, 'sshd_config'),
    [
      `Port ${sshPort}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(sshDir, 'host')}`,
      `AuthorizedKeysFile ${join(sshDir, 'authorized_keys')}`,
      `PidFile ${join(sshDir, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'AllowTcpForwarding yes',
      'AllowStreamLocalForwarding yes',
      'ClientAliveInterval 0',
      `SetEnv DOCKER_HOST=unix://${socket}`,
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  const startSshd = async (): Promise<void> => {
    const p = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(sshDir, 'sshd_config')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    p.stderr?.on('data', (d: Buffer) => writeFileSync(sshLog, d, { flag: 'a' }));
    sshd = p;
    await waitFor(
      () => existsSync(sshLog) && /Server listening on 127\.0\.0\.1/.test(readFileSync(sshLog, 'utf8')),
      `sshd to listen (see ${sshLog})`,
      20_000,
    );
  };
  const stopSshd = async (): Promise<void> => {
    const p = sshd;
    sshd = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    killChildren(p.pid);
    p.kill('SIGTERM');
    await exited;
  };
  const killChildren = (pid: number | undefined): void => {
    if (!pid) return;
    let out = '';
    try {
      out = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
    } catch {
      return; // none
    }
    for (const child of out.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(child), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  };

  try {
    await startDaemon();
    await startSshd();
  } catch (e) {
    await stopSshd().catch(() => undefined);
    await stopDaemon().catch(() => undefined);
    rmSync(base, { recursive: true, force: true });
    throw e;
  }
  const docker = new Docker({ socketPath: socket });
  return {
    socket,
    docker,
    sshPort,
    privateKey: readFileSync(join(sshDir, 'client'), 'utf8'),
    hostKey: () => fingerprint(join(sshDir, 'host.pub')),
    url: `ssh://root@127.0.0.1:${sshPort}?socket=${socket}`,
    dialStdioUrl: `ssh://root@127.0.0.1:${sshPort}?dial=stdio`,
    tls: tls ? { url: `tcp://127.0.0.1:${tls.port}`, ca: tls.ca, cert: tls.cert, key: tls.key } : null,
    logins: () => (existsSync(sshLog) ? (readFileSync(sshLog, 'utf8').match(/Accepted publickey/g) ?? []).length : 0),
    cutConnections: () => killChildren(sshd?.pid),
    rotateHostKey: async () => {
      await stopSshd();
      newHostKey();
      writeFileSync(sshLog, '');
      await startSshd();
    },
    restartDaemon: async () => {
      await stopDaemon();
      await startDaemon();
    },
    dispose: async () => {
      await stopSshd().catch(() => undefined);
      // A clean stop stops its containers; then nothing of it is left but files.
      await stopDaemon().catch(() => undefined);
      // What the daemon may leave mounted under its roots (host-network containers' netns file): deepest first.
      const mounts = readFileSync('/proc/self/mounts', 'utf8')
        .split('\n')
        .map((l) => l.split(' ')[1] ?? '')
        .filter((m) => m.startsWith(`${base}/`))
        .sort((a, b) => b.length - a.length);
      for (const m of mounts)
        try {
          execFileSync('umount', [m], { stdio: 'ignore' });
        } catch {
          // already gone
        }
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate (openssl; PEM), as `dockerd --tlsverify` wants them. */
function makeTlsMaterial(dir: string): {
  ca: string;
  cert: string;
  key: string;
  files: { ca: string; serverCert: string; serverKey: string };
} {
  mkdirSync(dir, { mode: 0o700 });
  const f = (n: string): string => join(dir, n);
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=nexus-test-ca',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  writeFileSync(f('client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const who of ['server', 'client']) {
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${who}`,
      '-keyout',
      f(`${who}.key`),
      '-out',
      f(`${who}.csr`),
    );
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${who}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      f(`${who}.ext`),
      '-out',
      f(`${who}.pem`),
    );
  }
  const read = (n: string): string => readFileSync(f(n), 'utf8');
  return {
    ca: read('ca.pem'),
    cert: read('client.pem'),
    key: read('client.key'),
    files: { ca: f('ca.pem'), serverCert: f('server.pem'), serverKey: f('server.key') },
  };
}

/**
 * Adds `remote` to a Nexus as engine `name` the way an operator does (its key into the vault, the engine added,
 * the host key it offered confirmed) and waits until the engine is reachable; resolves with the engine's id.
 */
export async function joinSecondEngine(
  call: <K extends OpName>(op: K, input: OpInput<K>) => Promise<OpOutput<K>>,
  remote: SecondEngine,
  name: string,
): Promise<string> {
  const key = await call('secrets.create', {
    name: `${name}-key`,
    kind: 'ssh_private_key',
    host: '',
    value: remote.privateKey,
  });
  const added = await call('engines.add', { name, url: remote.url, keySecretId: key.id });
  await call('engines.confirmHostKey', { engine: name, fingerprint: added.hostKeyFingerprint ?? '' });
  await readUntil(
    () => call('engines.list', {}),
    (l) => l.engines.some((e) => e.name === name && e.state === 'reachable'),
    60_000,
  );
  return added.id;
}

/** A workspace of a real-agent fleet on a remote engine, seen from the test: commands in it, what its workers were handed. */
export interface RemoteWorkspace {
  /** `sh -c` in the workspace's container, through Nexus's runtime (its engine's SSH connection). */
  sh(script: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** What the workspace's hook forwarder was handed: its NATS URL (the engine's leaf node). */
  hookTarget(): Promise<{ url: string }>;
  /** A session's run credential as its worker holds it (its JWT file), at the leaf's URL. */
  runCredsOf(sessionId: string): Promise<RunCredentials & { password: string }>;
}

export function remoteWorkspace(fleet: RealAgentFleet, ws: string): RemoteWorkspace {
  const sh = async (script: string) => {
    const runtime = fleet.running.core.workspaces.runtime;
    return runtime.exec(runtime.info(ws), ['sh', '-c', script]);
  };
  const hookTarget = async (): Promise<{ url: string }> => {
    const r = await sh('cat /tmp/nexus-tools/hook-nats.json');
    if (r.exitCode !== 0 || !r.stdout) throw new Error(`no hook target: ${r.exitCode} ${r.stderr}`);
    return JSON.parse(r.stdout) as { url: string };
  };
  return {
    sh,
    hookTarget,
    runCredsOf: async (sessionId) => {
      const agent = await fleet.call('agents.forWorkspace', { workspace: ws });
      const run = fleet.running.core.platform.runs.runningOf(agent.id).find((r) => r.sessionId === sessionId);
      if (!run) throw new Error('the session has no running run');
      const jwt = await sh(`cat $(find /tmp/nexus-sessions -name nats-password | grep ${sessionId} | head -1)`);
      return {
        runId: run.id,
        natsUrl: (await hookTarget()).url,
        user: runUserName(run.id),
        password: jwt.stdout.trim(),
        inboxPrefix: subjects.inboxPrefixFor(run.id),
        subject: subjects.toolsFor(run.id),
      };
    },
  };
}

/**
 * A whole Nexus running the real agent CLI (real-agent-fleet.ts: the scripted model stand-in) with a second engine
 * joined as an operator joins one, and one workspace made on that engine — what a test of sessions on a remote engine
 * starts from. `dispose()` removes the fleet's workspaces and cores, then the second engine (whatever the first did).
 */
export interface RemoteFleet extends RemoteWorkspace {
  /** The second engine itself: its own Docker client, its sshd (logins, cuts), its daemon (restarts). */
  engine: SecondEngine;
  fleet: RealAgentFleet;
  /** The engine's id in Nexus. */
  engineId: string;
  /** The name of the workspace made on the engine. */
  workspace: string;
  /** The leaf containers on the engine, stopped ones too. */
  leaves(): Promise<Docker.ContainerInfo[]>;
  dispose(): Promise<void>;
}

export interface RemoteFleetOptions {
  /** The workspace's name (made on the engine, running before this resolves). */
  workspace: string;
  /** How the workspace is made: its permission mode, its delegation. */
  create?: { bypass?: boolean; delegation?: DelegationChoice };
  /**
   * Makes the served repository private: the vault holds this token as the repository host's GitHub secret and the
   * workspace clones (and pushes) with it.
   */
  repoToken?: string;
  /** What the engine is added as (default `big`). */
  engineName?: string;
  /** The second daemon's address pool (startSecondEngine's default unless given). */
  pool?: string;
  /** Merged over the fleet's core config; `nats.leafPort` is 0 (the engine's leaf dials in) unless given. */
  config?: CoreConfigInput;
}

export async function startRemoteFleet(opts: RemoteFleetOptions): Promise<RemoteFleet> {
  const name = opts.engineName ?? 'big';
  const engine = await startSecondEngine(opts.pool ? { pool: opts.pool } : {});
  let fleet: RealAgentFleet | undefined;
  const dispose = async (): Promise<void> => {
    try {
      await fleet?.dispose();
    } finally {
      await engine.dispose();
    }
  };
  try {
    fleet = await startRealAgentFleet(
      { ...opts.config, nats: { leafPort: 0, ...opts.config?.nats } },
      opts.repoToken ? { repoToken: opts.repoToken } : {},
    );
    const engineId = await joinSecondEngine(fleet.call, engine, name);
    const secret = opts.repoToken
      ? await fleet.call('secrets.create', {
          name: 'git',
          kind: 'github',
          host: fleet.env.repo.host,
          value: opts.repoToken,
        })
      : null;
    const w = await fleet.createWorkspace(opts.workspace, {
      ...opts.create,
      engine: name,
      ...(secret ? { secretId: secret.id } : {}),
    });
    if (w.engine !== engineId) throw new Error(`workspace ${opts.workspace} is on engine ${w.engine}, not ${engineId}`);
    return {
      ...remoteWorkspace(fleet, opts.workspace),
      engine,
      fleet,
      engineId,
      workspace: opts.workspace,
      leaves: () => engine.docker.listContainers({ all: true, filters: { label: ['nexus.leaf.engine'] } }),
      dispose,
    };
  } catch (e) {
    await dispose().catch(() => undefined);
    throw e;
  }
}

/** A direct SSH link to the second engine (no registry, no vault): what the benches dial it with. */
export function linkToSecondEngine(remote: SecondEngine, id: string): EngineLink {
  return linkTo(
    {
      id,
      name: id,
      kind: 'ssh',
      url: remote.url,
      keySecretId: 'key',
      caSecretId: null,
      certSecretId: null,
      tlsKeySecretId: null,
      hostKey: remote.hostKey(),
      hostKeyPinned: true,
      createdAt: '',
    },
    () => Promise.resolve({ value: remote.privateKey, kind: 'ssh_private_key' }),
  );
}
