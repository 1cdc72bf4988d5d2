import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';
import { realDocker, testBaseImage } from '../../../test/helpers/docker';
import { DEFAULT_BASE_IMAGE, defaultBaseImage, workerBuildContext } from './worker-image';

describe('the worker image build context', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());
  const ctx = { dir: join(repoRoot, 'resources', 'worker'), baseImage: 'nexus-base:test' };

  it('is deterministic: the same files and args give the same tag', () => {
    const a = workerBuildContext(ctx);
    const b = workerBuildContext(ctx);
    expect(a.tag).toBe(b.tag);
    expect(a.tar.equals(b.tar)).toBe(true);
    expect(a.tag).toMatch(/^nexus-worker:[0-9a-f]{16}$/);
    expect(a.buildargs).toEqual({ BASE_IMAGE: 'nexus-base:test', INSTALL_AGENT_CLI: '0' });
  });

  it('changes the tag when the base image, the agent CLI switch or the bundled bridge changes', () => {
    const base = workerBuildContext(ctx).tag;
    expect(workerBuildContext({ ...ctx, baseImage: 'node:20-bookworm' }).tag).not.toBe(base);
    expect(workerBuildContext({ ...ctx, installAgentCli: true }).tag).not.toBe(base);
    mkdirSync(dir.path, { recursive: true });
    const bridge = join(dir.path, 'nexus-mcp.cjs');
    writeFileSync(bridge, 'console.log(1)');
    const withBridge = workerBuildContext({ ...ctx, mcpBridge: bridge });
    expect(withBridge.tag).not.toBe(base);
    expect(withBridge.tar.includes(Buffer.from('rootfs/opt/nexus/nexus-mcp.cjs'))).toBe(true);
  });

  it("puts the helpers' Node at /opt/nexus/node/bin/node, and a different binary gives a different tag", () => {
    mkdirSync(dir.path, { recursive: true });
    const node = join(dir.path, 'node');
    writeFileSync(node, 'node binary v1');
    const one = workerBuildContext({ ...ctx, node });
    expect(one.tag).not.toBe(workerBuildContext(ctx).tag);
    expect(one.tar.includes(Buffer.from('rootfs/opt/nexus/node/bin/node'))).toBe(true);
    expect(one.tar.includes(Buffer.from('node binary v1'))).toBe(true);
    writeFileSync(node, 'node binary v2, a longer one');
    expect(workerBuildContext({ ...ctx, node }).tag).not.toBe(one.tag);
  });

  it('carries the Dockerfile, the credential helper and the entrypoint, and no secret-looking env', () => {
    const { tar } = workerBuildContext(ctx);
    for (const path of [
      'Dockerfile',
      'rootfs/opt/nexus/bin/nexus-git-credential',
      'rootfs/opt/nexus/bin/nexus-with-credential',
      'rootfs/opt/nexus/bin/nexus-entrypoint',
    ]) {
      expect(tar.includes(Buffer.from(path))).toBe(true);
    }
    expect(tar.toString('latin1')).not.toMatch(/ENV [^\n]*(TOKEN|SECRET|PASSWORD)/);
    // TypeScript sources under resources/worker (nexus-mcp/ is bundled separately) stay out.
    expect(tar.includes(Buffer.from('nexus-mcp/main.ts'))).toBe(false);
  });
});

describe('the default base image', () => {
  it('is the offline nexus-base image where the engine lacks node:20-bookworm, else node:20-bookworm', async () => {
    const offline = testBaseImage(); // built by scripts/build-base-image.sh when missing (cached)
    const docker = realDocker();
    const tags = (await docker.listImages()).flatMap((i) => i.RepoTags ?? []);
    const picked = await defaultBaseImage(docker);
    if (tags.includes(DEFAULT_BASE_IMAGE)) expect(picked).toBe(DEFAULT_BASE_IMAGE);
    else {
      expect(picked).toMatch(/^nexus-base:/);
      expect(tags).toContain(offline);
    }
  });
});
