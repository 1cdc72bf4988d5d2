import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { NexusError } from '../../../shared/errors';

/** Where Claude Desktop keeps `claude_desktop_config.json` on each platform. */
export function claudeDesktopConfigPath(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
): string {
  if (platform === 'darwin')
    return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (platform === 'win32')
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Claude', 'claude_desktop_config.json');
}

export const StdioServerEntry = z.object({
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()).optional(),
});
export type StdioServerEntry = z.infer<typeof StdioServerEntry>;

const ConfigFile = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()).optional() });

function readConfig(path: string): z.infer<typeof ConfigFile> | null {
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new NexusError(
      'conflict',
      `${path} is not valid JSON; fix or move it, then connect again (nothing was written).`,
    );
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success)
    throw new NexusError(
      'conflict',
      `${path} does not look like a Claude Desktop config ("mcpServers" must be an object); nothing was written.`,
    );
  return parsed.data;
}

/** Our entry as the config holds it now, or null. */
export function readServerEntry(path: string, name: string): StdioServerEntry | null {
  const entry = readConfig(path)?.mcpServers?.[name];
  const parsed = StdioServerEntry.safeParse(entry);
  return parsed.success ? parsed.data : null;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Writes (or replaces) one `mcpServers` entry, keeping every other entry and top-level key as it
 * was. Idempotent: an identical entry means no write and no backup. Otherwise the previous file is
 * copied to `<file>.nexus-backup-<time>` first, and the new one replaces it atomically (temp + rename).
 */
export function writeServerEntry(
  path: string,
  name: string,
  entry: StdioServerEntry,
  now = new Date(),
): { changed: boolean; backupPath: string | null } {
  const current = readConfig(path);
  if (current && sameJson(current.mcpServers?.[name], entry)) return { changed: false, backupPath: null };
  let backupPath: string | null = null;
  if (current) {
    backupPath = `${path}.nexus-backup-${now.toISOString().replace(/[:.]/g, '-')}`;
    copyFileSync(path, backupPath);
  } else {
    mkdirSync(dirname(path), { recursive: true });
  }
  const next = { ...(current ?? {}), mcpServers: { ...(current?.mcpServers ?? {}), [name]: entry } };
  const temp = `${path}.nexus-${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
  return { changed: true, backupPath };
}
