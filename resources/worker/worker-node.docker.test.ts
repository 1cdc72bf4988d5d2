import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookHandler, relayStartScript, type RelayPaths } from '../../main/core/sessions/hooks/hook-relay';
import { WORKER_NODE } from '../../main/core/docker';
import { repoRoot } from '../../test/helpers/core';
import { ensureTestWorkerImage, pinnedWorkerNode } from '../../test/helpers/docker';

const docker = (args: string[], input?: string): string =>
  execFileSync('docker', args, { encoding: 'utf8', timeout: 60_000, ...(input === undefined ? {} : { input }) });

/**
 * Preloaded into every Node the helpers start: records which Node ran which script (or startup snapshot:
 * nexus-mcp starts from one, and then argv has no script), then lets it run on.
 */
const RECORD_NODE = `const a = process.execArgv, i = a.indexOf('--snapshot-blob');
require('fs').appendFileSync('/tmp/nodes', require('path').basename((i >= 0 ? a[i + 1] : process.argv[1]) || '-') + ' ' + process.version + ' ' + process.execPath + '\\n');`;

describe("the worker's Nexus helpers run on the pinned Node", () => {
  const name = `nexus-worker-node-${randomBytes(4).toString('hex')}`;
  const tools = '/tmp/tools';
  const paths: RelayPaths = {
    toolsDir: tools,
    stateDir: '/tmp/state',
    natsFile: '/tmp/state/nats.json',
    port: 47999,
    workspaceId: 'w-node-test',
  };
  const sh = (script: string): string =>
    docker(['exec', '-e', 'NODE_OPTIONS=--require /tmp/record-node.cjs', name, 'sh', '-c', script]);
  const recorded = (): string[] => docker(['exec', name, 'cat', '/tmp/nodes']).trim().split('\n');

  beforeAll(async () => {
    const image = await ensureTestWorkerImage();
    docker(['run', '-d', '--rm', '--name', name, '--network', 'none', image]);
    docker(['exec', '-i', name, 'sh', '-c', 'cat > /tmp/record-node.cjs'], RECORD_NODE);
    docker(['exec', name, 'mkdir', '-p', tools, paths.stateDir]);
    for (const helper of ['nexus-hook.cjs', 'nexus-hook-relay.cjs'])
      docker(['cp', join(repoRoot, 'dist', 'worker', helper), `${name}:${tools}/${helper}`]);
    docker(['exec', '-i', name, 'sh', '-c', `cat > ${tools}/relay-start.sh`], relayStartScript(paths));
  }, 600_000);
  afterAll(() => {
    docker(['rm', '-f', name]);
  });

  it('has the version in .node-version at the helpers’ path, unlike the base image’s own node', () => {
    const pin = pinnedWorkerNode().version;
    expect(docker(['exec', name, WORKER_NODE, '--version']).trim()).toBe(`v${pin}`);
    // The offline base's Debian Node (18) stays for the project's own use; Nexus does not run on it.
    expect(docker(['exec', name, 'node', '--version']).trim()).not.toBe(`v${pin}`);
  });

  it('starts nexus-mcp (from its startup snapshot), the Node hook command and the hook relay on that Node', () => {
    const pin = pinnedWorkerNode().version;
    // nexus-mcp as the agent CLI starts it (its --mcp-config names /opt/nexus/bin/nexus-mcp); no NATS here, so it exits.
    const mcp = docker(['exec', name, 'sh', '-c', 'timeout 10 /opt/nexus/bin/nexus-mcp </dev/null 2>&1 || true']);
    // From the snapshot the image built: its modules were evaluated at build time, its start still reads the environment.
    expect(mcp).toContain('nexus-mcp: missing or invalid environment');
    sh('timeout 10 /opt/nexus/bin/nexus-mcp </dev/null >/dev/null 2>&1 || true');
    // The hook command exactly as the agent's settings hold it (the relay is started from it).
    const hook = hookHandler('SessionStart', paths, 5, 'node');
    sh(`echo '{}' | timeout 20 sh -c ${JSON.stringify(String(hook.command))} >/dev/null 2>&1 || true`);
    // The relay loop, started by relay-start.sh as the first hook would.
    sh(`timeout 20 sh ${tools}/relay-start.sh >/dev/null 2>&1 || true`);
    const runs = recorded();
    const byScript = new Map(runs.map((line) => [line.split(' ')[0], line]));
    expect([...byScript.keys()]).toEqual(
      expect.arrayContaining(['nexus-mcp.blob', 'nexus-hook.cjs', 'nexus-hook-relay.cjs']),
    );
    for (const line of runs) expect(line).toMatch(new RegExp(` v${pin.replace(/\./g, '\\.')} ${WORKER_NODE}$`));
  });
});
