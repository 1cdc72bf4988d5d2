import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewGet, previewHotReload } from '../../../test/helpers/preview-app';
import { previewRig } from '../../../test/helpers/preview-rig';

// One worker container on the `nexus` bridge; two sessions' dev servers (the preview app) started in their
// worktrees, one on every address (reached at the container's bridge address), one on 127.0.0.1 only
// (reached through a docker exec); a third server outside every worktree is nobody's preview; a fourth, outside
// every worktree too, is in a session's reserved port block (PORT, NEXUS_PORTS).
let rig: Awaited<ReturnType<typeof previewRig>>;
let web = '';
let api = '';
let ranged = '';

beforeAll(async () => {
  rig = await previewRig({ portsOf: (id) => (id === ranged ? { from: 20010, to: 20019 } : null) });
  web = (await rig.addSession('web')).id;
  api = (await rig.addSession('api')).id;
  ranged = (await rig.addSession('ranged')).id;
  await Promise.all([
    rig.startApp('/workspace/.nexus-worktrees/web', 3000),
    rig.startApp('/workspace/.nexus-worktrees/api', 3001, '127.0.0.1'),
    rig.startApp('/workspace', 3002),
    rig.startApp('/tmp', 20012),
  ]);
}, 120_000);
afterAll(async () => {
  await rig?.dispose();
});

const hostOf = (port: number, session: string) => `${port}-${session}.${rig.workspace.name}.localhost:${rig.frontPort}`;
const get = (host: string, path: string) => previewGet(rig.frontPort, host, path);
const hotMessage = (host: string) => previewHotReload(rig.frontPort, host);

describe("a session's previews", () => {
  it('lists the ports its processes listen on in its worktree, each at its own origin', async () => {
    const list = await rig.previews.service.list(web);
    expect(list.previews).toEqual([
      {
        port: 3000,
        url: `http://${hostOf(3000, 'web')}/`,
        process: 'node',
        attributedBy: 'cwd',
        label: null,
        loopbackOnly: false,
      },
    ]);
    const other = await rig.previews.service.list(api);
    expect(other.previews.map((p) => [p.port, p.loopbackOnly])).toEqual([[3001, true]]);
    const byBlock = await rig.previews.service.list(ranged);
    expect(byBlock.previews.map((p) => [p.port, p.attributedBy])).toEqual([[20012, 'ports']]);
    expect((await get(hostOf(20012, 'ranged'), '/')).body).toContain('The previewed app');
  }, 30_000);

  it('serves the page and passes the hot-reload WebSocket both ways at the bridge address', async () => {
    const page = await get(hostOf(3000, 'web'), '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('The previewed app');
    expect(await hotMessage(hostOf(3000, 'web'))).toEqual(['reload', 'saved src/app.tsx']);
    const big = await get(hostOf(3000, 'web'), '/big');
    expect(big.body.length).toBe(10 * 1024 * 1024);
  }, 30_000);

  it('reaches an app bound to 127.0.0.1 in its container through a docker exec, WebSocket too', async () => {
    expect((await get(hostOf(3001, 'api'), '/')).body).toContain('The previewed app');
    expect(await hotMessage(hostOf(3001, 'api'))).toEqual(['reload', 'saved src/app.tsx']);
    const big = await get(hostOf(3001, 'api'), '/big');
    expect(big.body.length).toBe(10 * 1024 * 1024);
  }, 30_000);

  it("serves nothing but a session's own port: not another session's, not one outside every worktree", async () => {
    expect((await get(hostOf(3001, 'web'), '/')).status).toBe(404);
    expect((await get(hostOf(3002, 'web'), '/')).status).toBe(404);
    expect((await get(hostOf(3000, 'nobody'), '/')).status).toBe(404);
    expect((await get(`3000-web.elsewhere.localhost:${rig.frontPort}`, '/')).status).toBe(404);
  }, 30_000);

  it('takes a screenshot of each preview when a turn ends and keeps it for the session', async () => {
    const changed = new Promise<void>((resolve) =>
      rig.events.subscribe((e) => {
        if (e.name === 'previews.changed') resolve();
      }),
    );
    rig.signals.emit('turnEnded', { sessionId: web, workspaceId: rig.workspace.id });
    await changed;
    const { screenshots } = await rig.previews.handlers['previews.screenshots']({ session: web }, {} as never);
    expect(screenshots).toHaveLength(1);
    expect(screenshots[0]).toMatchObject({ port: 3000, seq: 1 });
    expect(screenshots[0]?.image).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(Buffer.from(screenshots[0]?.image.split(',')[1] ?? '', 'base64').length).toBeGreaterThan(2000);
  }, 60_000);
});
