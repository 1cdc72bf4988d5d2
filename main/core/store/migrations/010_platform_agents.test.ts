import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

describe('migration 010 platform agents', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('gives existing agents every permission, no MCP servers and no auto-start; sessions no tools reason', () => {
    const file = join(dir.path, 'a.db');
    const before = openStore(
      file,
      migrations.filter((m) => m.version < 10),
    );
    before.prepare(`INSERT INTO agents (id, name, tools, created_at) VALUES ('a1', 'workspace:w1', '[]', 't')`).run();
    before.close();

    const db = openStore(file, migrations);
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(10);
    const row = db.prepare(`SELECT permissions, mcp_servers, auto_start, max_auto_sessions FROM agents`).get();
    expect(row).toEqual({
      permissions: '["memory.write","skill.write","task.write","board.write"]',
      mcp_servers: '[]',
      auto_start: 0,
      max_auto_sessions: 1,
    });
    expect(db.prepare(`SELECT tools_reason, task_id FROM sessions`).all()).toEqual([]);
    db.close();
  });
});
