import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** The requests this server answers, each with the SDK's own schema for its params. */
const REQUESTS: Record<string, { safeParse(v: unknown): { success: boolean } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/**
 * The first request in a message (or batch) whose params do not fit its method, e.g. `tools/call`
 * with `arguments: []`. The SDK would answer those with -32603 (internal error) and a raw schema
 * dump; the gate answers -32602 (invalid params) instead, so a malformed request is a typed refusal.
 */
export function firstMalformedRequest(body: unknown): { id: unknown; method: string } | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (typeof method !== 'string' || id === undefined || !Object.hasOwn(REQUESTS, method)) continue;
    if (!REQUESTS[method]?.safeParse(message).success) return { id, method };
  }
  return null;
}
