import { TrackerError } from './tracker-port';

/** One request to a tracker, bounded in time; the secret goes in `headers` and never into an error. */
export async function trackerRequest(
  what: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown; timeoutMs: number },
): Promise<{ status: number; json: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method,
      headers: {
        accept: 'application/json',
        ...init.headers,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(init.timeoutMs),
      redirect: 'error',
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
    throw new TrackerError(`${what}: the tracker could not be reached (${cause}).`, false);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    const refused = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
    throw new TrackerError(`${what}: the tracker answered ${res.status}${detail(text)}.`, refused, res.status);
  }
  let json: unknown = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      throw new TrackerError(`${what}: the tracker's answer is not JSON.`, false, res.status);
    }
  }
  return { status: res.status, json };
}

/** A short reason from an error body (Redmine: {"errors":[…]}; GitHub: {"message":…}), never more than a line. */
function detail(text: string): string {
  try {
    const j = JSON.parse(text) as { errors?: unknown; message?: unknown };
    const why = Array.isArray(j.errors)
      ? j.errors.map(String).join('; ')
      : typeof j.message === 'string'
        ? j.message
        : '';
    return why ? ` (${why.slice(0, 200)})` : '';
  } catch {
    return '';
  }
}
