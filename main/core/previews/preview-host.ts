/**
 * A preview's origin: `http://<port>-<session>.<workspace>.localhost:<nexus port>`. Chromium (and so Electron
 * and the headless screenshotter) resolves every `*.localhost` name to loopback without DNS, so each session's
 * each port is an origin of its own on the one loopback listener, and none is the UI's (`127.0.0.1`/`localhost`).
 */
export interface PreviewName {
  port: number;
  /** The session's label: its name, or `s<id>` when the name is not a DNS label (dots, underscores, too long). */
  session: string;
  workspace: string;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** `<port>-<label>` must fit one DNS label (63): five digits and a dash leave 57. */
const MAX_SESSION_LABEL = 57;
const HOST =
  /^([1-9][0-9]{0,4})-([a-z0-9](?:[a-z0-9-]{0,55}[a-z0-9])?)\.([a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?)\.localhost:([0-9]{1,5})$/;

/** The label a session's previews carry: its name when that is a DNS label, else one made from its id. */
export function sessionLabel(session: { id: string; name: string }): string {
  if (LABEL.test(session.name) && session.name.length <= MAX_SESSION_LABEL) return session.name;
  return `s${session.id.toLowerCase().replace(/[^a-z0-9]/g, '')}`.slice(0, MAX_SESSION_LABEL);
}

export function previewOrigin(name: PreviewName, nexusPort: number): string {
  return `http://${name.port}-${name.session}.${name.workspace}.localhost:${nexusPort}`;
}

/** The preview a request's Host names on this listener's port, or null (then it is not a preview request). */
export function parsePreviewHost(host: string | undefined, nexusPort: number): PreviewName | null {
  if (!host) return null;
  const m = HOST.exec(host.toLowerCase());
  if (!m || Number(m[4]) !== nexusPort) return null;
  const port = Number(m[1]);
  if (port > 65535) return null;
  return { port, session: m[2] ?? '', workspace: m[3] ?? '' };
}
