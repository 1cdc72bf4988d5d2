import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { openStore, type Db } from '../store/open';
import { AuditLog, READS_COMMIT_MS } from './audit-log';

const entry = (operation: string, readOnly: boolean) => ({
  actor: 'token:tok_1',
  transport: 'mcp',
  operation,
  outcome: 'ok',
  durationMs: 1,
  readOnly,
});

const rowsIn = (db: Db): string[] =>
  (db.prepare('SELECT operation FROM audit ORDER BY id').all() as { operation: string }[]).map((r) => r.operation);

describe('AuditLog', () => {
  const dirs: { remove(): void }[] = [];
  const dbs: Db[] = [];
  const open = (path?: string): { db: Db; path: string } => {
    let dir = path;
    if (!dir) {
      const made = tempDir('nexus-audit-');
      dirs.push(made);
      dir = made.path;
    }
    const db = openStore(join(dir, 'nexus.db'));
    dbs.push(db);
    return { db, path: dir };
  };
  afterEach(() => {
    for (const db of dbs.splice(0)) if (db.open) db.close();
    for (const dir of dirs.splice(0)) dir.remove();
  });

  it('keeps every row of a batch of reads and leaves the store committing with a sync afterwards', () => {
    const { db } = open();
    const audit = new AuditLog(db);
    audit.record(entry('mcp:get_nexus_info', true));
    audit.record(entry('mcp:list_sessions', true));
    audit.flush();
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    audit.record(entry('mcp:create_session', false));
    expect(audit.recent().map((r) => r.operation)).toEqual([
      'mcp:create_session',
      'mcp:list_sessions',
      'mcp:get_nexus_info',
    ]);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('commits a change at the end of its turn and successful reads within a quarter second, unasked', async () => {
    const { db, path } = open();
    const audit = new AuditLog(db);
    const reader = open(path).db;
    audit.record(entry('mcp:get_nexus_info', true));
    audit.record(entry('mcp:create_session', false));
    await new Promise((r) => setImmediate(r));
    expect(rowsIn(reader)).toEqual(['mcp:get_nexus_info', 'mcp:create_session']);
    audit.record(entry('mcp:list_sessions', true));
    await new Promise((r) => setImmediate(r));
    expect(rowsIn(reader)).toHaveLength(2);
    await new Promise((r) => setTimeout(r, READS_COMMIT_MS + 100));
    expect(rowsIn(reader)).toEqual(['mcp:get_nexus_info', 'mcp:create_session', 'mcp:list_sessions']);
  });

  it('loses no read recorded before Nexus died: the next start puts it in the log once', () => {
    const { db, path } = open();
    const audit = new AuditLog(db);
    audit.record(entry('mcp:get_nexus_info', true));
    audit.record(entry('mcp:list_sessions', true));
    audit.flush(); // committed: the journal is emptied
    audit.record(entry('mcp:get_session', true));
    expect(readFileSync(join(path, 'audit-journal', `${process.pid}.jsonl`), 'utf8')).toContain('mcp:get_session');
    db.close(); // the process dies before the reads' commit: nothing in memory survives

    const again = open(path).db;
    const restarted = new AuditLog(again);
    expect(rowsIn(again)).toEqual(['mcp:get_nexus_info', 'mcp:list_sessions', 'mcp:get_session']);
    restarted.close();
    expect(readdirSync(join(path, 'audit-journal'))).toEqual([]);
  });

  it('imports a row its journal holds only once, when the commit was written but the journal not yet emptied', () => {
    const { db, path } = open();
    const audit = new AuditLog(db);
    audit.record(entry('mcp:get_nexus_info', true));
    const journal = join(path, 'audit-journal', `${process.pid}.jsonl`);
    const line = readFileSync(journal, 'utf8');
    audit.flush();
    writeFileSync(journal, line); // as if Nexus died between the commit and emptying the journal
    db.close();

    const again = open(path).db;
    new AuditLog(again).close();
    expect(rowsIn(again)).toEqual(['mcp:get_nexus_info']);
  });

  it("leaves a running process's journal alone", () => {
    const { db, path } = open();
    new AuditLog(db).close();
    const other = join(path, 'audit-journal', `${process.ppid}.jsonl`);
    writeFileSync(other, `${JSON.stringify({ ...entry('mcp:get_session', true), at: new Date().toISOString() })}\n`);
    const audit = new AuditLog(db);
    audit.close();
    expect(rowsIn(db)).toEqual([]);
    expect(existsSync(other)).toBe(true);
  });
});
