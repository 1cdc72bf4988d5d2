import { join } from 'node:path';
import { serve, type Running } from '../../main/serve';
import { repoRoot } from './core';
import { Browser, type MemoryClaude } from './oauth-client';
import { startTunnel } from './tunnel';
import { tempDir } from './temp-dir';

export { Browser, CLAUDE_CALLBACK, MemoryClaude } from './oauth-client';
export { OTHER_NAME, PUBLIC_NAME } from './tunnel';

export interface RemoteNexus {
  running: Running;
  /** `https://nexus.example.test:<front port>` — the public origin Nexus was started with. */
  origin: string;
  frontPort: number;
  mcpUrl: string;
  /** fetch through the tunnel stand-in, verifying its certificate (no internet, no DNS). */
  fetch: typeof fetch;
  /** An operator call on the loopback host with the UI's credential (`/api/rpc/<op>`). */
  operator<T = unknown>(
    op: string,
    input?: unknown,
    credential?: 'token' | 'none',
  ): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/**
 * `nexus serve --public-origin https://nexus.example.test:<port>` behind a local HTTPS front that
 * forwards every request to Nexus's loopback port with the public Host — as a tunnel would (it
 * delivers from loopback).
 */
export async function startRemoteNexus(opts: { via?: 'flag' | 'setting' } = {}): Promise<RemoteNexus> {
  const dir = tempDir('nexus-remote-test-');
  const tunnel = await startTunnel();
  const { origin, frontPort } = tunnel;
  const running = await serve({
    dataDir: join(dir.path, 'data'),
    appRoot: repoRoot,
    port: 0,
    config: { version: 'test' },
    ...(opts.via === 'setting' ? {} : { publicOrigin: origin }),
  });
  tunnel.forwardTo(running.host.port);
  if (opts.via === 'setting') running.core.remote.setOrigin(origin);

  const operator = async <T>(op: string, input: unknown = {}, credential: 'token' | 'none' = 'token') => {
    const res = await fetch(`${running.host.url}/api/rpc/${op}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(credential === 'token' ? { authorization: `Bearer ${running.host.token}` } : {}),
      },
      body: JSON.stringify(input),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  return {
    running,
    origin,
    frontPort,
    mcpUrl: `${origin}/api/mcp`,
    fetch: tunnel.fetch,
    operator,
    close: async () => {
      await running.stop();
      await tunnel.close();
      dir.remove();
    },
  };
}

/** The consent round trip as Claude's user lives it, the operator approving through the local API. */
export async function approveThroughOperator(
  nexus: RemoteNexus,
  claude: MemoryClaude,
  cls: 'read' | 'write' = 'read',
  browser = new Browser(nexus.fetch),
): Promise<{ code: string; shownCode: string; pendingId: string }> {
  if (!claude.authorizationUrl) throw new Error('no authorization URL: run auth() first');
  const toConsent = await browser.get(claude.authorizationUrl);
  const consentUrl = new URL(toConsent.headers.get('location') ?? '', nexus.origin);
  const page = await browser.get(consentUrl);
  const shownCode = /class="code">([A-Z0-9-]+)</.exec(await page.text())?.[1] ?? '';
  const { body } = await nexus.operator<{ result: { pending: { id: string; code: string }[] } }>('remote.pending');
  const pending = body.result.pending.find((p) => p.code === shownCode);
  if (!pending) throw new Error(`no pending request with code ${shownCode}`);
  await nexus.operator('remote.approve', { id: pending.id, class: cls });
  const resume = await browser.get(consentUrl);
  const back = await browser.get(new URL(resume.headers.get('location') ?? '', nexus.origin));
  const code = new URL(back.headers.get('location') ?? '').searchParams.get('code') ?? '';
  return { code, shownCode, pendingId: pending.id };
}
