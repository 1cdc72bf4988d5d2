import { z } from 'zod';
import { operation } from './define';
import { SessionRef } from './sessions';

/**
 * A port a session's app listens on, served by Nexus at an origin of its own
 * (`http://<port>-<session>.<workspace>.localhost:<nexus port>`, docs/previews.md): never the UI's origin,
 * so the previewed app cannot call Nexus's API or read its cookie.
 */
export const Preview = z.object({
  port: z.number().int().min(1).max(65535),
  url: z.string(),
  /** The listening process's name (its `comm`), when the container lets Nexus see it. */
  process: z.string().nullable(),
  /**
   * Why this port is the session's: the process runs in its worktree, the port is in its reserved range, or the
   * workspace's recipe forwards it (devcontainer.json `forwardPorts`: shown on every session of the workspace).
   */
  attributedBy: z.enum(['cwd', 'ports', 'forwardPorts']),
  /** The recipe's label of the port (devcontainer.json `portsAttributes`), when it forwards it. */
  label: z.string().nullable(),
  /** It listens on the container's loopback only: reached through a `docker exec` per connection (slower). */
  loopbackOnly: z.boolean(),
});
export type Preview = z.infer<typeof Preview>;

/** A picture of one preview taken when a turn of the session's agent ended (the last few are kept). */
export const PreviewScreenshot = z.object({
  id: z.string(),
  port: z.number().int(),
  /** The turn end it was taken at: 1, 2, … counted per session since Nexus started following it. */
  seq: z.number().int().positive(),
  at: z.string(),
  /** A JPEG as a data URL (the UI's CSP allows `data:` images; nothing is fetched from the preview). */
  image: z.string(),
});
export type PreviewScreenshot = z.infer<typeof PreviewScreenshot>;

export const previewOperations = {
  'previews.list': operation({
    summary:
      "A session's live previews: the ports its processes listen on in the workspace, each at an origin of its own.",
    access: 'read',
    delegated: 'own-session',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: z.object({ sessionId: z.string(), previews: z.array(Preview), note: z.string().nullable() }),
  }),
  'previews.screenshots': operation({
    summary: "The last screenshots of a session's previews, one per preview and turn end, newest first.",
    access: 'read',
    delegated: 'own-session',
    phone: true,
    audit: 'dispatcher',
    input: z.object({ session: SessionRef }).strict(),
    output: z.object({ sessionId: z.string(), screenshots: z.array(PreviewScreenshot) }),
  }),
};

export const previewEvents = {
  /** New screenshots of a session's previews were taken (a turn ended). */
  'previews.changed': z.object({ sessionId: z.string() }),
};
