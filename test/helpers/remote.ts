import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { serve, type Running } from '../../main/serve';
import { repoRoot } from './core';
import { tempDir } from './temp-dir';

/** The public name the tunnel stand-in answers for; resolved to 127.0.0.1 by `publicFetch`. */
export const PUBLIC_NAME = 'nexus.example.test';
/** A second public name on the same front (the operator moved the tunnel). */
export const OTHER_NAME = 'other.example.test';
export const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';

/** A self-signed certificate for PUBLIC_NAME, made now with the openssl CLI (valid one day). */
function selfSignedCertificate(dir: string): { key: Buffer; cert: Buffer } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      `/CN=${PUBLIC_NAME}`,
      '-addext',
      `subjectAltName=DNS:${PUBLIC_NAME},DNS:${OTHER_NAME}`,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

const headerObject = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => (out[key] = value));
  return out;
};

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
  const tls = selfSignedCertificate(dir.path);
  let nexusPort = 0;
  const front: Server = createHttpsServer(tls, (req, res) => {
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: nexusPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const frontPort = (front.address() as AddressInfo).port;
  const origin = `https://${PUBLIC_NAME}:${frontPort}`;
  const running = await serve({
    dataDir: join(dir.path, 'data'),
    appRoot: repoRoot,
    port: 0,
    config: { version: 'test' },
    ...(opts.via === 'setting' ? {} : { publicOrigin: origin }),
  });
  nexusPort = running.host.port;
  if (opts.via === 'setting') running.core.remote.setOrigin(origin);

  const publicFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body as string);
    return new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: url.hostname,
          port: url.port,
          method,
          path: `${url.pathname}${url.search}`,
          headers: headerObject(headers),
          ca: tls.cert,
          servername: url.hostname,
          lookup: (_host, opts, cb) =>
            (opts as { all?: boolean }).all
              ? cb(null, [{ address: '127.0.0.1', family: 4 }] as never)
              : cb(null, '127.0.0.1', 4),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks);
            resolve(new Response(status === 204 || status === 304 ? null : text, { status, headers: h }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;

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
    fetch: publicFetch,
    operator,
    close: async () => {
      await running.stop();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      front.closeAllConnections();
      dir.remove();
    },
  };
}

/** A cookie jar for one browser: what the authorization server sets during the authorize round trip. */
export class Browser {
  private readonly jar = new Map<string, string>();
  constructor(private readonly doFetch: typeof fetch) {}
  async get(url: string | URL): Promise<Response> {
    const res = await this.doFetch(url, {
      redirect: 'manual',
      headers: this.jar.size ? { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
    });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      this.jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }
}

/** Claude's side, in memory: an OAuthClientProvider whose redirect is only recorded (the test plays the browser). */
export class MemoryClaude implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(
    private readonly redirect = CLAUDE_CALLBACK,
    private readonly extra: Partial<OAuthClientMetadata> = {},
  ) {}
  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Claude',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.extra,
    };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** The consent round trip as Claude's user lives it, the operator approving through the local API. */
export async function approveThroughOperator(
  nexus: RemoteNexus,
  claude: MemoryClaude,
  cls: 'read' | 'write' = 'read',
): Promise<{ code: string; shownCode: string; pendingId: string }> {
  if (!claude.authorizationUrl) throw new Error('no authorization URL: run auth() first');
  const browser = new Browser(nexus.fetch);
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
