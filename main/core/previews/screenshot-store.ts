import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PreviewScreenshot } from '../../../shared/contract/previews';

/** How many turn ends' screenshots a session keeps (each turn end: one per preview). */
export const KEEP_TURNS = 3;
const FILE = /^([0-9]{1,9})-([0-9]{1,5})-([0-9]{13})\.jpg$/;
const SESSION_DIR = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * The last few screenshots of each session's previews, as files under the data dir
 * (`previews/<session id>/<turn end>-<port>-<ms>.jpg`): the name is the whole record, so nothing else is kept.
 */
export class ScreenshotStore {
  constructor(private readonly dir: string) {}

  private sessionDir(sessionId: string): string {
    if (!SESSION_DIR.test(sessionId)) throw new Error('not a session id');
    return join(this.dir, sessionId);
  }

  private files(sessionId: string): { name: string; seq: number; port: number; ms: number }[] {
    let names: string[] = [];
    try {
      names = readdirSync(this.sessionDir(sessionId));
    } catch {
      return [];
    }
    return names
      .flatMap((name) => {
        const m = FILE.exec(name);
        return m ? [{ name, seq: Number(m[1]), port: Number(m[2]), ms: Number(m[3]) }] : [];
      })
      .sort((a, b) => b.seq - a.seq || a.port - b.port);
  }

  /** The last turn end a screenshot was kept for (0: none). */
  lastSeq(sessionId: string): number {
    return this.files(sessionId)[0]?.seq ?? 0;
  }

  add(sessionId: string, seq: number, port: number, jpeg: Buffer, at = Date.now()): void {
    const dir = this.sessionDir(sessionId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, `${seq}-${port}-${String(at).padStart(13, '0')}.jpg`), jpeg, { mode: 0o600 });
    const seqs = [...new Set(this.files(sessionId).map((f) => f.seq))];
    for (const f of this.files(sessionId)) if (seqs.indexOf(f.seq) >= KEEP_TURNS) rmSync(join(dir, f.name));
  }

  list(sessionId: string): PreviewScreenshot[] {
    const dir = this.sessionDir(sessionId);
    return this.files(sessionId).map((f) => ({
      id: f.name.slice(0, -4),
      port: f.port,
      seq: f.seq,
      at: new Date(f.ms).toISOString(),
      image: `data:image/jpeg;base64,${readFileSync(join(dir, f.name)).toString('base64')}`,
    }));
  }

  forget(sessionId: string): void {
    rmSync(this.sessionDir(sessionId), { recursive: true, force: true });
  }
}
