import type { IncomingMessage, ServerResponse } from 'node:http';
import { NexusError } from '../../shared/errors';

/** JSON over Node's HTTP server: one way to read a bounded request body and to answer, for the host's API and the MCP gate. */

/**
 * The request body as text, refused as `bad_request` once it passes `maxBytes` (the request is then
 * destroyed, as the rest of it will not be read). Plain 'data'/'end' listeners, left on the request
 * once it settled: an async iterator, or named handlers removed one by one, cost every request
 * several promises or closures.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return collect(req, maxBytes, asText);
}

/** A bounded JSON request body: empty is `{}`, another Content-Type or bad JSON is `bad_request`. */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return collect(req, maxBytes, asJson);
}

export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new NexusError('bad_request', 'The request body is not valid JSON.');
  }
}

const asText = (text: string): string => text;
const asJson = (text: string, req: IncomingMessage): unknown => {
  if (text.length === 0) return {};
  const type = req.headers['content-type'];
  if (type !== undefined && !type.startsWith('application/json'))
    throw new NexusError('bad_request', 'Send JSON (Content-Type: application/json).');
  return parseJsonBody(text);
};

/** The body read whole, then `finish` (text → what the caller wants) in the same promise: one promise per request. */
function collect<T>(
  req: IncomingMessage,
  maxBytes: number,
  finish: (text: string, req: IncomingMessage) => T,
): Promise<T> {
  if (req.readableEnded || req.destroyed)
    return new Promise((resolve) => {
      if (req.destroyed && !req.readableEnded)
        throw new NexusError('bad_request', 'The request was closed before its body ended.');
      resolve(finish('', req));
    });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      settled = true;
      req.destroy();
      reject(new NexusError('bad_request', 'Request body too large.'));
    });
    req.on('end', () => {
      settled = true;
      // A small body is one chunk: decoded as it is, without copying it into a new buffer first.
      const text =
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
      try {
        resolve(finish(text, req));
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', (e) => {
      settled = true;
      reject(e);
    });
    // Every request closes after its end: the error (and its stack trace) only when the body was cut short.
    req.on('close', () => {
      if (!settled) reject(new NexusError('bad_request', 'The request was closed before its body ended.'));
    });
  });
}

/**
 * Answers `body` as JSON. `headers` (name, value, name, value...) go out with the same head: a
 * listener that sets its own headers on every response (the host's) passes them here, so a
 * response with none set before is written in one `writeHead` (Node's fast path), not header by header.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: readonly string[] = []): void {
  const text = JSON.stringify(body);
  res.writeHead(status, [
    'content-type',
    'application/json; charset=utf-8',
    'cache-control',
    'no-store',
    'content-length',
    String(Buffer.byteLength(text)),
    ...headers,
  ]);
  res.end(text);
}
