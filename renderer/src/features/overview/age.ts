/** "just now", "4 min", "2 h", "3 d" — how long something has been waiting. */
export function age(since: string | null, now = Date.now()): string {
  if (!since) return '';
  const s = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}
