import { toolNames, type ContentBlock, type ModelReply, type ModelRequest } from './model-api';

/** The names among a request's offered `tools` that start with `prefix` (e.g. `mcp__nexus__`), sorted. */
export const offered = (req: ModelRequest, prefix: string): string[] =>
  toolNames(req)
    .filter((n) => n.startsWith(prefix))
    .sort();

/**
 * The model's side of loading deferred MCP tools through the CLI's tool search: `ToolSearch`
 * `select:<names>` until the request after a search satisfies `loaded` (a server still connecting
 * offers nothing yet: the model waits a few seconds and searches again, at most `tries` times),
 * then `then` in order, then "OK.". For `fleet.respond`. `request` resolves with the first request after a search that satisfied
 * `loaded`, or the last one after the final try (so an assertion on it says what was offered).
 */
export function loadTools(
  names: readonly string[],
  loaded: (req: ModelRequest) => boolean,
  then: readonly ModelReply[],
  opts: { tries?: number; waitMs?: number } = {},
): { respond: (req: ModelRequest) => Promise<ModelReply>; request: Promise<ModelRequest> } {
  const tries = opts.tries ?? 30;
  const waitMs = opts.waitMs ?? 5000;
  let searches = 0;
  let next = 0;
  let done = false;
  let resolve!: (r: ModelRequest) => void;
  const request = new Promise<ModelRequest>((r) => (resolve = r));
  const step = async (req: ModelRequest): Promise<ModelReply> => {
    if (!done && searches > 0 && (loaded(req) || searches >= tries)) {
      done = true;
      resolve(req);
    }
    if (done) return then[next++] ?? { text: 'Done.' };
    if (searches > 0) await new Promise((r) => setTimeout(r, waitMs));
    searches++;
    return {
      toolUse: { name: 'ToolSearch', input: { query: `select:${names.join(',')}`, max_results: names.length } },
    };
  };
  return { respond: step, request };
}

/**
 * The tools a ToolSearch loaded, as the request after it carries them: the `tool_reference` blocks
 * of its latest tool_result (the CLI may append a system reminder after it), sorted.
 */
export const toolReferences = (req: ModelRequest): string[] => {
  const results = (req.body.messages ?? [])
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === 'tool_result');
  const last = results[results.length - 1];
  return (Array.isArray(last?.content) ? (last.content as ContentBlock[]) : [])
    .filter((c) => c.type === 'tool_reference' && typeof c.tool_name === 'string')
    .map((c) => c.tool_name as string)
    .sort();
};

/** The tool_result block answering tool_use `id` in any of `turns`. */
export const toolResult = (turns: readonly ModelRequest[], id: string): ContentBlock | undefined =>
  turns
    .flatMap((t) => t.body.messages ?? [])
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .find((b) => b.type === 'tool_result' && b.tool_use_id === id);
