/**
 * When a provider's usage limit resets, read from its own 429 answer (docs/gateway.md, "Usage limits"). Each wire says
 * it its own way; the first that gives a time in the future wins, in this order:
 * 1. the body: Codex's `usage_limit_reached` (`error.resets_at`, Unix seconds; older: `error.resets_in_seconds`),
 *    Google's `RESOURCE_EXHAUSTED` with a `RetryInfo` detail's `retryDelay` ("20s", "1.5s");
 * 2. `retry-after-ms`, then `retry-after` (seconds, or an HTTP date): Anthropic's and OpenAI's 429s carry it;
 * 3. the providers' rate-limit headers, the latest reset of the limits that are used up (of all of them when none says
 *    so): Anthropic's `anthropic-ratelimit-<limit>-reset` (RFC 3339) and `anthropic-ratelimit-unified-reset` (Unix
 *    seconds, a Claude subscription's), OpenAI's `x-ratelimit-reset-<limit>` (a duration, "6m0s", "20ms"), Codex's
 *    `x-codex-<window>-reset-after-seconds`.
 * A 429 that names no time (a quota with no reset) gives null: Nexus then says nothing it does not know.
 */

type Headers = Record<string, string | string[] | undefined>;

/** The latest a reset is believed: a week (a bad header must not park a session for years). */
const MAX_AHEAD_MS = 7 * 24 * 3600_000;

/**
 * Whether the 429 ends the agent's turn instead of being retried: Codex gives up at its `usage_limit_reached` and
 * `usage_not_included` (measured on 0.169: "You've hit your usage limit… try again at 1:30 AM", no Stop hook), where
 * it and Claude Code retry a rate limit's 429 after its `retry-after`.
 */
export function endsTurn(status: number, body: string): boolean {
  if (status !== 429) return false;
  try {
    const type = (JSON.parse(body) as { error?: { type?: unknown } } | null)?.error?.type;
    return type === 'usage_limit_reached' || type === 'usage_not_included';
  } catch {
    return false;
  }
}

export function usageLimitReset(status: number, headers: Headers, body: string, now: Date): Date | null {
  if (status !== 429) return null;
  const t = now.getTime();
  const ok = (ms: number | null): ms is number =>
    ms !== null && Number.isFinite(ms) && ms > t && ms - t <= MAX_AHEAD_MS;
  for (const ms of [fromBody(body, t), fromRetryAfter(headers, t), fromRateLimitHeaders(headers, t)])
    if (ok(ms)) return new Date(ms);
  return null;
}

function header(headers: Headers, name: string): string | null {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() ? s.trim() : null;
}

const num = (s: string | null): number | null => (s !== null && /^\d+(\.\d+)?$/.test(s) ? Number(s) : null);

function fromBody(body: string, t: number): number | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (!error || typeof error !== 'object') return null;
  const e = error as Record<string, unknown>;
  if (typeof e.resets_at === 'number') return e.resets_at * 1000;
  if (typeof e.resets_in_seconds === 'number') return t + e.resets_in_seconds * 1000;
  const details = Array.isArray(e.details) ? (e.details as Record<string, unknown>[]) : [];
  for (const d of details) {
    const delay = typeof d?.retryDelay === 'string' ? duration(d.retryDelay) : null;
    if (delay !== null) return t + delay;
  }
  return null;
}

function fromRetryAfter(headers: Headers, t: number): number | null {
  const ms = num(header(headers, 'retry-after-ms'));
  if (ms !== null) return t + ms;
  const after = header(headers, 'retry-after');
  if (after === null) return null;
  const seconds = num(after);
  if (seconds !== null) return t + seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : date;
}

/** Each rate-limit header's reset, and whether its limit is used up (null: the answer does not say). */
function fromRateLimitHeaders(headers: Headers, t: number): number | null {
  const resets: { at: number; spent: boolean | null }[] = [];
  for (const [name, raw] of Object.entries(headers)) {
    const value = header({ [name]: raw }, name);
    if (value === null) continue;
    let m: RegExpExecArray | null;
    if ((m = /^anthropic-ratelimit-(.+)-reset$/.exec(name))) {
      const unix = num(value);
      const at = unix !== null ? unix * 1000 : Date.parse(value);
      const remaining = num(header(headers, `anthropic-ratelimit-${m[1]}-remaining`));
      const status = header(headers, `anthropic-ratelimit-${m[1]}-status`);
      const spent = remaining !== null ? remaining === 0 : status !== null ? status === 'rejected' : null;
      if (!Number.isNaN(at)) resets.push({ at, spent });
    } else if ((m = /^x-ratelimit-reset-(.+)$/.exec(name))) {
      const d = duration(value);
      const remaining = num(header(headers, `x-ratelimit-remaining-${m[1]}`));
      if (d !== null) resets.push({ at: t + d, spent: remaining === null ? null : remaining === 0 });
    } else if ((m = /^x-codex-(.+)-reset-after-seconds$/.exec(name))) {
      const s = num(value);
      const used = num(header(headers, `x-codex-${m[1]}-used-percent`));
      if (s !== null) resets.push({ at: t + s * 1000, spent: used === null ? null : used >= 100 });
    }
  }
  const spent = resets.filter((r) => r.spent === true);
  const pick = spent.length ? spent : resets.filter((r) => r.spent !== false);
  return pick.length ? Math.max(...pick.map((r) => r.at)) : null;
}

/** "20s", "1.5s", "6m0s", "1h2m3.5s", "250ms" → milliseconds; null when it is not one. */
export function duration(text: string): number | null {
  const s = text.trim();
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(s)) return null;
  let ms = 0;
  for (const [, n, unit] of s.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g))
    ms += Number(n) * (unit === 'h' ? 3600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1);
  return ms;
}
