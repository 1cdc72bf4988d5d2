import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realDocker, testBaseImage } from '../../../test/helpers/docker';
import { tempDir } from '../../../test/helpers/temp-dir';
import { openStore, type Db } from '../store/open';
import { WorkspaceRuntime, type WorkspaceInfo } from './runtime';
import { WorkspaceStore } from './workspace-store';

describe('WorkspaceRuntime.exec and info (a real container)', () => {
  const docker = realDocker();
  const dir = tempDir('nexus-runtime-');
  const label = `nexus.test=runtime-${randomBytes(4).toString('hex')}`;
  let db: Db;
  let store: WorkspaceStore;
  let runtime: WorkspaceRuntime;
  let ws: WorkspaceInfo;

  beforeAll(async () => {
    db = openStore(join(dir.path, 'nexus.db'));
    store = new WorkspaceStore(db);
    runtime = new WorkspaceRuntime({ docker, store });
    const [key, value] = label.split('=') as [string, string];
    const c = await docker.createContainer({
      Image: testBaseImage(),
      Cmd: ['sleep', 'infinity'],
      Labels: { [key]: value },
      HostConfig: { NetworkMode: 'none' },
    });
    await c.start();
    const row = store.insert({
      name: 'rt',
      repoUrl: 'https://example.com/r.git',
      secretId: null,
      image: null,
      volumePrefix: 'nexus-test-',
    });
    store.update(row.id, { containerId: c.id, status: 'running' });
    ws = runtime.info('rt');
  }, 120_000);

  afterAll(async () => {
    const list = await docker.listContainers({ all: true, filters: { label: [label] } });
    for (const c of list) await docker.getContainer(c.Id).remove({ force: true });
    db.close();
    dir.remove();
  });

  it('reads the workspace from the store, by id or name', () => {
    expect(ws).toMatchObject({ name: 'rt', running: true });
    expect(runtime.info(ws.id)).toEqual(ws);
    expect(runtime.find('nope')).toBeNull();
    expect(() => runtime.info('nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(runtime.list()).toEqual([ws]);
  });

  it('keeps the head and the tail of a long output and says how much it cut', async () => {
    const r = await runtime.exec(ws, ['sh', '-c', 'printf START; head -c 300000 /dev/zero | tr "\\0" a; printf END'], {
      maxOutput: 1000,
    });
    expect(r.exitCode).toBe(0);
    expect(r.cut.stdout).toBe(300_008 - 1000);
    expect(r.stdout.startsWith(`START${'a'.repeat(495)}\n[… ${300_008 - 1000} bytes cut …]\n`)).toBe(true);
    expect(r.stdout.endsWith(`${'a'.repeat(497)}END`)).toBe(true);
    const whole = await runtime.exec(ws, ['sh', '-c', 'printf "héllo"; printf oops >&2']);
    expect(whole).toMatchObject({ stdout: 'héllo', stderr: 'oops', cut: { stdout: 0, stderr: 0 } });
  });

  it('writes stdin whole and then closes it, so a reader of stdin finishes', async () => {
    const payload = Buffer.alloc(1024 * 1024 + 7, 0x61);
    const r = await runtime.exec(ws, ['sh', '-c', 'wc -c'], { stdin: payload });
    expect(r.stdout.trim()).toBe(String(payload.length));
  });

  it('reports the exit code of every short command', async () => {
    const codes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => runtime.exec(ws, ['sh', '-c', `exit ${i + 1}`]).then((r) => r.exitCode)),
    );
    expect(codes).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('waits for the exit the engine records after the output ends, and never makes one up', async () => {
    // The output closes at once; the exit comes 1.5 s later (a loaded engine records exits this late, and an
    // unrecorded one once read as exit -1).
    const late = ['sh', '-c', 'printf out; exec >&- 2>&-; sleep 1.5; exit 7'];
    const r = await runtime.exec(ws, late);
    expect(r).toMatchObject({ exitCode: 7, stdout: 'out' });
    await expect(runtime.exec(ws, late, { timeoutMs: 500 })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('streams stderr to the callback, passes env, user and working dir', async () => {
    const chunks: string[] = [];
    const r = await runtime.exec(ws, ['sh', '-c', 'echo "$GREETING from $(id -u) in $(pwd)" >&2'], {
      env: { GREETING: 'hi' },
      user: '1000:1000',
      workingDir: '/tmp',
      onStderr: (t) => chunks.push(t),
    });
    expect(chunks.join('')).toBe('hi from 1000 in /tmp\n');
    expect(r.stderr).toBe('hi from 1000 in /tmp\n');
  });

  it('fails with timeout when the command outlives timeoutMs, and with conflict without a container', async () => {
    await expect(runtime.exec(ws, ['sleep', '30'], { timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout' });
    await expect(runtime.exec({ name: 'none', containerId: null }, ['true'])).rejects.toMatchObject({
      code: 'conflict',
    });
  });
});
