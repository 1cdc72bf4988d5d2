import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { openStore, type Db } from '../store/open';
import { AuditLog } from './audit-log';

const entry = (operation: string, readOnly: boolean) => ({
  actor: 'token:tok_1',
  transport: 'mcp',
  operation,
  outcome: 'ok',
  durationMs: 1,
  readOnly,
});

describe('AuditLog', () => {
  const dir = tempDir('nexus-audit-');
  let db: Db | undefined;
  afterEach(() => db?.close());

  it('keeps every row of a batch of reads and leaves the store committing with a sync afterwards', () => {
    db = openStore(join(dir.path, 'nexus.db'));
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
});
