/** Turns a notification/tray target (`session:<id>`) into the renderer route, or null if malformed. */
export function routeFor(target: string | undefined): string | null {
  if (!target) return null;
  const m = /^session:([A-Za-z0-9_-]{1,64})$/.exec(target);
  return m ? `#/sessions/${m[1]}` : null;
}
