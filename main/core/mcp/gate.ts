import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { allows } from '../../../shared/contract';
import type { Caller } from '../handlers';
import { parseJsonBody, readBody, sendJson } from '../http-json';
import type { Logger } from '../log';
import type { Authentication, TokenService } from '../tokens';
import { firstMalformedRequest } from './request-shape';
import { createMcpServer, type McpServerDeps } from './server';
import { type DelegationService, DELEGATED_SESSION_HEADER } from './delegation/delegation-service';
import { toolAccess } from './tool';
import { toolsByName } from './tools';

export { MCP_PATH } from './mcp-path';
const REALM = 'nexus-mcp';
const MAX_BODY = 4 * 1024 * 1024;

type TokenCaller = Extract<Caller, { kind: 'token' }>;
/** What the gate needs from core on top of the server's deps: the tokens that know its caller, and the log. */
export interface McpGateDeps extends McpServerDeps {
  tokens: TokenService;
  log: Logger;
  /** Workspaces' delegated credentials: their scope, calling session and rate limit. */
  delegation?: Pick<DelegationService, 'callFor'>;
}

/** Where this gate serves: the loopback host (default), or the worker listener on the workers' bridge gateway. */
export interface McpGateOptions {
  /** Accept only workspaces' delegated credentials (the worker listener). */
  delegatedOnly?: boolean;
  /** Remote connectors (docs/remote.md): the public Host, its Origin, OAuth access tokens, the resource_metadata challenge. */
  remote?: RemoteGateAuth;
}

/**
 * How the gate on the public origin knows its callers (the public front checked Host and Origin):
 * main/core/connectors/connector-service.ts.
 */
export interface RemoteGateAuth {
  publicHost(): string | null;
  origin(): string | null;
  challenge(extra?: string): string;
  authenticate(secret: string): Promise<Authentication>;
}

/**
 * The HTTP gate in front of the MCP server. It runs only for the matched route `/api/mcp`, after
 * the listener in front of it has checked Host and Origin (main/host/guard.ts, one allow-list per
 * listener), and decides on the token and on the tool names in the JSON-RPC body, never on path text:
 *  - credentials only in `Authorization: Bearer nxs_…` (a query string is refused outright, the UI's
 *    cookie and start token are not MCP credentials);
 *  - 401 + WWW-Authenticate without a valid token, 403 (insufficient_scope) for a tool above its class;
 *  - stateless Streamable HTTP: a fresh transport and server per request, bound to that token.
 * Every refusal and every tool call is audited.
 */
export function createMcpGate(
  core: McpGateDeps,
  opts: McpGateOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const started = performance.now();
    const audit = (actor: string, operation: string, outcome: string): void =>
      core.audit.record({ actor, transport: 'mcp', operation, outcome, durationMs: performance.now() - started });
    const remote = opts.remote; // the public origin: OAuth access tokens and the resource_metadata challenge

    if ((req.url ?? '').includes('?')) {
      audit('anonymous', 'mcp:gate', 'bad_request');
      return refuse(
        res,
        400,
        'bad_request',
        'The MCP endpoint takes no query string; send the token as Authorization: Bearer.',
      );
    }

    const presented = bearerOf(req.headers.authorization);
    if (!presented) {
      audit('anonymous', 'mcp:gate', 'unauthorized');
      res.setHeader('www-authenticate', remote ? remote.challenge() : `Bearer realm="${REALM}"`);
      return refuse(
        res,
        401,
        'unauthorized',
        'Send an MCP token (nxs_r_…, nxs_w_… or nxs_v_…) as Authorization: Bearer. ' +
          'Create one with `nexus token create` or in Settings → Access.',
      );
    }
    const auth = await (remote ?? core.tokens).authenticate(presented);
    if (!auth.ok) {
      audit('anonymous', 'mcp:gate', 'unauthorized');
      const why = auth.reason === 'malformed' ? 'not an MCP token' : auth.reason;
      res.setHeader(
        'www-authenticate',
        remote
          ? remote.challenge(`, error="invalid_token", error_description="The token is ${why}"`)
          : `Bearer realm="${REALM}", error="invalid_token", error_description="The token is ${why}"`,
      );
      return refuse(
        res,
        401,
        'unauthorized',
        `That MCP token is ${auth.reason === 'malformed' ? 'not an MCP token' : auth.reason}.`,
      );
    }
    const caller = auth.caller;
    // A vault token's data key lives for this request only (the operator's vault state is untouched).
    res.on('close', () => auth.vault.end());
    const actor = `token:${caller.tokenId}`;
    const delegated = core.delegation?.callFor(caller, req.headers[DELEGATED_SESSION_HEADER]) ?? null;
    if (opts.delegatedOnly && !delegated) {
      auth.vault.end();
      audit(actor, 'mcp:gate', 'forbidden');
      return refuse(
        res,
        403,
        'forbidden',
        "Only a workspace's delegated credential is accepted on the workers' endpoint.",
      );
    }

    if (req.method !== 'POST') {
      // Stateless: no standalone SSE stream and no session to delete.
      res.setHeader('allow', 'POST');
      return refuse(res, 405, 'bad_request', 'Use POST: this endpoint is stateless Streamable HTTP.');
    }

    let body: unknown;
    try {
      body = await readJson(req);
    } catch (e) {
      audit(actor, 'mcp:gate', 'bad_request');
      return refuse(res, 400, 'bad_request', e instanceof Error ? e.message : 'Invalid request body.');
    }

    const malformed = firstMalformedRequest(body);
    if (malformed) {
      audit(actor, `mcp:${malformed.method.slice(0, 50)}`, 'bad_request');
      return sendJson(res, 200, {
        jsonrpc: '2.0',
        id: malformed.id,
        error: { code: -32602, message: `Invalid params for ${malformed.method}.`, data: { code: 'bad_request' } },
      });
    }

    // The class check of a token's tools/call (a session's delegated credential gets the dispatcher's refusal as a
    // tool error its model reads).
    const denied = delegated ? null : firstDeniedTool(body, caller);
    if (denied) {
      audit(actor, `mcp:${denied.tool}`, 'forbidden');
      res.setHeader('www-authenticate', `Bearer realm="${REALM}", error="insufficient_scope", scope="${denied.needs}"`);
      return sendJson(res, 403, {
        jsonrpc: '2.0',
        id: denied.id,
        error: {
          code: -32003,
          message: `${denied.tool} needs a ${denied.needs} token; this one is ${caller.access}.`,
          data: { code: 'forbidden' },
        },
      });
    }

    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = createMcpServer(core, caller, delegated);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await auth.vault.run(() => transport.handleRequest(req, res, body));
  };
}

function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer ([A-Za-z0-9._~+/=-]{1,200})$/.exec(header);
  return m?.[1] ?? null;
}

/** The first `tools/call` in a message (or batch) naming a known tool above the caller's class. */
function firstDeniedTool(body: unknown, caller: TokenCaller): { tool: string; needs: string; id: unknown } | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params, id } = message as { method?: unknown; params?: { name?: unknown }; id?: unknown };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const tool = toolsByName.get(params.name);
    if (tool && !allows(caller.access, toolAccess(tool)))
      return { tool: tool.name, needs: toolAccess(tool), id: id ?? null };
  }
  return null;
}

const readJson = async (req: IncomingMessage): Promise<unknown> => parseJsonBody(await readBody(req, MAX_BODY));

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}
