import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { waitFor } from '../../../test/helpers/wait';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import {
  EGRESS_RELAY_PORT,
  EngineLeaves,
  GATEWAY_RELAY_PORT,
  LEAF_WORKER_PORT,
  leafContainerName,
} from './engine-leaf';
import type { EngineRegistry } from './engine-registry';
import { joinPlatform } from './join-platform';
import type { SshConnection } from './ssh-connection';

/**
 * An engine as far as its leaf goes: one workspace container (its image and bridge gateway) and the
 * leaf container by name, which the test can stop or remove as a daemon restart would leave it.
 * The leaf on a real engine: remote-session.docker.test.ts and remote-leaf.docker.test.ts.
 */
function fakeEngine() {
  const engine = {
    leaf: null as { running: boolean; restarting: boolean } | null,
    /** The engine does not answer (its daemon restarting). */
    down: false,
    started: 0,
    inspects: 0,
    /** The leaf container's command (its relays). */
    entrypoint: [] as string[],
  };
  const leafContainer = {
    inspect: () => {
      engine.inspects++;
      if (engine.down) return Promise.reject(new Error('connect ENOENT docker.sock'));
      return engine.leaf
        ? Promise.resolve({ State: { Running: engine.leaf.running, Restarting: engine.leaf.restarting } })
        : Promise.reject(Object.assign(new Error('no such container'), { statusCode: 404 }));
    },
    remove: () => Promise.resolve(void (engine.leaf = null)),
  };
  // A workspace on the workers' network, and a confined one on the internal network only (its own gateway).
  const workspaces: Record<string, Record<string, { Gateway: string }>> = {
    'ws-container': { nexus: { Gateway: '10.201.0.1' } },
    'confined-container': { 'nexus-confined': { Gateway: '10.201.1.1' } },
  };
  const docker = {
    getContainer: (id: string) =>
      workspaces[id]
        ? {
            inspect: () =>
              Promise.resolve({
                Config: { Image: 'nexus-worker:test' },
                NetworkSettings: { Networks: workspaces[id] },
              }),
          }
        : leafContainer,
    getNetwork: (name: string) => ({
      inspect: () =>
        name === 'nexus'
          ? Promise.resolve({ IPAM: { Config: [{ Gateway: '10.201.0.1', Subnet: '10.201.0.0/24' }] } })
          : Promise.reject(Object.assign(new Error('no such network'), { statusCode: 404 })),
    }),
    createContainer: (opts: { Entrypoint: string[] }) =>
      (engine.entrypoint = opts.Entrypoint) && engine.down
        ? Promise.reject(new Error('connect ENOENT docker.sock'))
        : Promise.resolve({
            putArchive: () => Promise.resolve(),
            start: () => {
              engine.started++;
              engine.leaf = { running: true, restarting: false };
              return Promise.resolve();
            },
            logs: () => Promise.resolve(Buffer.from('[INF] Leafnode connection created for account: A…')),
            inspect: () => Promise.resolve({ State: { Running: true } }),
          }),
  } as unknown as Docker;
  return { engine, docker };
}

/** Core's model gateway and egress proxy on this machine, as the leaves are told. */
const GATEWAY = { host: '172.30.0.1', port: 4782 };
const EGRESS = { host: '172.30.0.1', port: 4790 };

describe('the leaf node of a remote engine', () => {
  const dir = tempDir('nexus-engine-leaf-');
  const binary = join(dir.path, 'nats-server');
  writeFileSync(binary, 'not a real binary');
  afterAll(() => dir.remove());

  const leavesOn = (
    docker: Docker,
    gatewayTarget: () => { host: string; port: number } | null = () => GATEWAY,
    egressTarget: () => { host: string; port: number } | null = () => null,
  ) =>
    new EngineLeaves({
      docker: () => docker,
      ssh: () =>
        ({
          forwardIn: (to: { port: number }) =>
            Promise.resolve(to.port === 4782 ? 40_003 : to.port === 4790 ? 40_004 : 40_001),
        }) as unknown as SshConnection,
      leafCredentials: () =>
        Promise.resolve({
          creds: 'creds',
          hubPort: 4248,
          trust: { operatorJwt: 'o', account: 'A', accountJwt: 'h.e30.s' },
        }),
      delegationTarget: () => Promise.resolve(null),
      gatewayTarget,
      egressTarget,
      network: 'nexus',
      trust: () => null,
      // ssh2's forward on the engine's connection (the stand-in's forwardIn).
      sshBinary: null,
      natsServerBinary: binary,
      owner: 'own',
      log: createLogger({ redactor: new Redactor() }),
    });

  it('starts one leaf for the sessions of an engine, however many ask at once, and hands its gateway URL', async () => {
    const { engine, docker } = fakeEngine();
    const leaves = leavesOn(docker);
    const all = await Promise.all([1, 2, 3].map(() => leaves.forContainer('e1', 'ws-container')));
    expect(all.map((l) => l.natsUrl)).toEqual(Array(3).fill(`nats://10.201.0.1:${LEAF_WORKER_PORT}`));
    expect(engine.started).toBe(1);
    // The model gateway's relay: on the engine's bridge gateway, to the forward of core's gateway, unbuffered.
    expect(all[0]?.gatewayBase).toBe(`http://10.201.0.1:${GATEWAY_RELAY_PORT}`);
    expect(engine.entrypoint.join(' ')).toContain(
      `socat TCP-LISTEN:${GATEWAY_RELAY_PORT},bind=10.201.0.1,fork,reuseaddr,nodelay TCP:127.0.0.1:40003,nodelay &`,
    );
    await leaves.forContainer('e1', 'ws-container');
    expect(engine.started).toBe(1);
    expect(leafContainerName('own', 'e1')).toBe('nexus-leaf-own-e1');
  });

  it('starts a new leaf when its container did not come back (removed, stopped, restarting), once for all who ask', async () => {
    const { engine, docker } = fakeEngine();
    const leaves = leavesOn(docker);
    await leaves.forContainer('e1', 'ws-container');
    for (const gone of [null, { running: false, restarting: false }, { running: true, restarting: true }]) {
      const before = engine.started;
      engine.leaf = gone;
      const again = await Promise.all([1, 2].map(() => leaves.forContainer('e1', 'ws-container')));
      expect(again[0]?.natsUrl).toBe(`nats://10.201.0.1:${LEAF_WORKER_PORT}`);
      expect(engine.started).toBe(before + 1);
      expect(engine.leaf).toEqual({ running: true, restarting: false });
    }
  });

  it('makes the leaf again, once, when it was made before the model gateway listened, so it relays it', async () => {
    const { engine, docker } = fakeEngine();
    let target: typeof GATEWAY | null = null;
    const leaves = leavesOn(docker, () => target);
    expect((await leaves.forContainer('e1', 'ws-container')).gatewayBase).toBeNull();
    expect(engine.entrypoint.join(' ')).not.toContain(`${GATEWAY_RELAY_PORT}`);
    target = GATEWAY;
    expect((await leaves.forContainer('e1', 'ws-container')).gatewayBase).toBe(
      `http://10.201.0.1:${GATEWAY_RELAY_PORT}`,
    );
    await leaves.forContainer('e1', 'ws-container');
    expect(engine.started).toBe(2);
  });

  it('relays the egress proxy on the workers’ gateway, also when a confined workspace (on its own internal network) asks first', async () => {
    const { engine, docker } = fakeEngine();
    let target: typeof EGRESS | null = null;
    const leaves = leavesOn(
      docker,
      () => GATEWAY,
      () => target,
    );
    expect((await leaves.forContainer('e1', 'confined-container')).egressBase).toBeNull();
    target = EGRESS;
    // Made again once the proxy listens; every relay on the workers' bridge gateway, not the internal network's.
    const leaf = await leaves.forContainer('e1', 'confined-container');
    expect(engine.started).toBe(2);
    expect(leaf.egressBase).toBe(`http://10.201.0.1:${EGRESS_RELAY_PORT}`);
    expect(leaf.natsUrl).toBe(`nats://10.201.0.1:${LEAF_WORKER_PORT}`);
    expect(leaf.gatewayBase).toBe(`http://10.201.0.1:${GATEWAY_RELAY_PORT}`);
    const command = engine.entrypoint.join(' ');
    expect(command).toContain(
      `socat TCP-LISTEN:${EGRESS_RELAY_PORT},bind=10.201.0.1,fork,reuseaddr TCP:127.0.0.1:40004 &`,
    );
    expect(command).toContain(
      `TCP-LISTEN:${GATEWAY_RELAY_PORT},bind=10.201.0.1,fork,reuseaddr,nodelay TCP:127.0.0.1:40003`,
    );
    expect(command).not.toContain('10.201.1.1');
  });

  it('keeps the known leaf while the engine does not answer (its daemon restarting), and uses it when it is back', async () => {
    const { engine, docker } = fakeEngine();
    const leaves = leavesOn(docker);
    const first = await leaves.forContainer('e1', 'ws-container');
    engine.down = true;
    expect(await leaves.forContainer('e1', 'ws-container')).toBe(first);
    engine.down = false;
    expect(await leaves.forContainer('e1', 'ws-container')).toBe(first);
    expect(engine.started).toBe(1);
  });

  it('makes a leaf removed under running workspaces again within a look, with no session started there', async () => {
    const { engine, docker } = fakeEngine();
    const ssh = { forwardIn: () => Promise.resolve(40_001) } as unknown as SshConnection;
    const joined = joinPlatform({
      registry: { docker: () => docker, sshOf: () => ssh, onRemoving: () => undefined } as unknown as EngineRegistry,
      platform: {
        routeWorkers: () => undefined,
        leafCredentials: () =>
          Promise.resolve({
            creds: 'c',
            hubPort: 4248,
            trust: { operatorJwt: 'o', account: 'A', accountJwt: 'h.e30.s' },
          }),
        natsTrust: null,
        onTrustChanged: () => ({ dispose: () => undefined }),
      },
      delegation: {
        routeWorkers: () => undefined,
        listenerAddress: () => ({ host: '127.0.0.1', port: 4300 }),
        relayHosts: new Set<string>(),
      },
      runtime: {
        find: () => undefined,
        list: () => [{ id: 'w1', name: 'w', running: true, containerId: 'ws-container', engine: 'e1' }],
      },
      gatewayTarget: () => null,
      egressTarget: () => null,
      network: 'nexus',
      natsBinary: binary,
      leafForwarder: 'ssh2',
      owner: 'own',
      log: createLogger({ redactor: new Redactor() }),
      leafCheckMs: 100,
    } as unknown as Parameters<typeof joinPlatform>[0]);
    try {
      await joined.restore();
      expect(engine.started).toBe(1);
      engine.leaf = null; // docker rm -f
      await waitFor(() => engine.started === 2, 'the leaf made again by the periodic look', 5_000);
      expect(engine.leaf).toEqual({ running: true, restarting: false });
      joined.dispose();
      engine.leaf = null;
      await new Promise((r) => setTimeout(r, 400));
      expect(engine.started).toBe(2);
    } finally {
      joined.dispose();
    }
  });

  it('routes a remote workspace to the model gateway relay on its engine (a TLS engine: no way), a local one not', async () => {
    const { docker } = fakeEngine();
    const ssh = { forwardIn: () => Promise.resolve(40_001) } as unknown as SshConnection;
    let viaSsh = true;
    const joined = joinPlatform({
      registry: {
        docker: () => docker,
        sshOf: () => (viaSsh ? ssh : null),
        onRemoving: () => undefined,
      } as unknown as EngineRegistry,
      platform: { routeWorkers: () => undefined, onTrustChanged: () => ({ dispose: () => undefined }) },
      delegation: { routeWorkers: () => undefined, listenerAddress: () => null, relayHosts: new Set<string>() },
      runtime: {
        find: (id: string) => ({ id, name: id, running: true, containerId: 'ws-container', engine: id }),
        list: () => [],
      },
      gatewayTarget: () => ({ host: '172.30.0.1', port: 4782 }),
      egressTarget: () => null,
      network: 'nexus',
      natsBinary: binary,
      owner: 'own',
      log: createLogger({ redactor: new Redactor() }),
    } as unknown as Parameters<typeof joinPlatform>[0]);
    expect(await joined.gatewayBase('e1')).toBe(`http://10.201.0.1:${GATEWAY_RELAY_PORT}`);
    expect(await joined.gatewayBase('local')).toBeNull();
    viaSsh = false;
    await expect(joined.gatewayBase('e2')).rejects.toThrow(/TLS engine cannot reach Nexus's model gateway/);
    joined.dispose();
  });
});
