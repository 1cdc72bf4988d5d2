/**
 * When an agent has not reported SessionStart in time, its pane says why: a dialog (a login screen,
 * a trust question, an error). This turns a pane capture into the session's error reason: the
 * lines with words in them (no box drawing or banner art), last ones kept, at most `max` chars.
 */
export function startupFailureReason(pane: string, timeoutMs: number, max = 400): string {
  const lines = pane
    .split('\n')
    .map((l) =>
      l
        .replace(/[\u2500-\u259f\u2800-\u28ff]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((l) => /\p{L}{2}/u.test(l));
  const seconds = Math.round(timeoutMs / 1000);
  if (lines.length === 0) return `The agent did not start within ${seconds} s and its window shows nothing.`;
  let text = '';
  for (let i = lines.length - 1; i >= 0; i--) {
    const next = text ? `${lines[i]} / ${text}` : (lines[i] ?? '');
    if (next.length > max) break;
    text = next;
  }
  return `The agent did not start within ${seconds} s; its window shows: ${text || (lines.at(-1) ?? '').slice(-max)}`;
}
