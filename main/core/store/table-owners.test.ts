import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { repoRoot } from '../../../test/helpers/core';
import { migrate } from './migrate';
import { migrations } from './migrations';

// A table is queried only by its owner's store (docs/architecture.md, "Who owns a table"). This is the one
// place that says which store owns which table; a new table needs a line here before any file may touch it.
const OWNERS: Record<string, string> = {
  acp_links: 'agents/acp/acp-store.ts',
  acp_prompts: 'agents/acp/acp-store.ts',
  acp_updates: 'agents/acp/acp-store.ts',
  agent_credentials: 'agents/agent-credential-store.ts',
  agents: 'platform/store/agents.ts',
  approval_rules: 'permissions/rules/rule-store.ts',
  attempt_groups: 'review/attempt-store.ts',
  attempt_members: 'review/attempt-store.ts',
  audit: 'audit/audit-store.ts',
  board_comments: 'platform/store/board.ts',
  core_secrets: 'vault/core-secret-store.ts',
  egress_refusals: 'egress/egress-store.ts',
  engines: 'engines/engine-store.ts',
  expiring_branches: 'review/attempt-store.ts',
  delegations: 'mcp/delegation/delegation-store.ts',
  gateway_credentials: 'gateway/gateway-credential-store.ts',
  memories: 'platform/review/memory-store.ts',
  memories_fts: 'platform/review/memory-store.ts',
  model_budgets: 'gateway/usage-store.ts',
  model_prices: 'gateway/usage-price-store.ts',
  model_usage: 'gateway/usage-store.ts',
  model_usage_daily: 'gateway/usage-store.ts',
  oauth_entries: 'connectors/oauth-entry-store.ts',
  oauth_grants: 'connectors/connector-grant-store.ts',
  oauth_pending: 'connectors/connector-grant-store.ts',
  phone_devices: 'phone/phone-store.ts',
  phone_invites: 'phone/phone-store.ts',
  phone_push: 'phone/phone-store.ts',
  phone_sessions: 'phone/phone-store.ts',
  remote_settings: 'connectors/public-origin-store.ts',
  review_comments: 'review/comment-store.ts',
  runs: 'platform/store/runs.ts',
  runs_fts: 'platform/store/runs.ts',
  secrets: 'vault/vault-store.ts',
  session_checkpoints: 'review/checkpoint-store.ts',
  session_ports: 'sessions/setup/session-port-store.ts',
  session_setups: 'sessions/setup/session-setup-store.ts',
  sessions: 'sessions/session-store.ts',
  skills: 'platform/review/skill-store.ts',
  task_issues: 'tracker/tracker-store.ts',
  tasks: 'platform/store/tasks.ts',
  tokens: 'tokens/token-store.ts',
  tracker_outbox: 'tracker/outbox-store.ts',
  tracker_pickups: 'tracker/tracker-store.ts',
  tracker_settings: 'tracker/tracker-store.ts',
  vault_meta: 'vault/vault-store.ts',
  vault_principals: 'vault/vault-store.ts',
  workspace_agent_defaults: 'workspaces/workspace-store.ts',
  workspace_egress: 'egress/egress-store.ts',
  workspace_recipes: 'workspaces/recipe/recipe-store.ts',
  workspace_session_files: 'sessions/setup/session-setup-store.ts',
  workspaces: 'workspaces/workspace-store.ts',
};

const coreDir = join(repoRoot, 'main/core');

/** Core's production files; the store room itself (migrations, the migration runner) is the schema's machinery. */
function productionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path === join(coreDir, 'store') ? [] : productionFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The string and template literals of a TypeScript source, comments skipped; literals joined by `+` count as
 * one, and a template's `${…}` reads as `$expr`, so a table named by an expression is seen (and refused).
 */
function literals(source: string): string[] {
  const out: string[] = [];
  let i = 0;
  let joinNext = false;
  const push = (text: string): void => {
    if (joinNext && out.length) out[out.length - 1] += text;
    else out.push(text);
    joinNext = false;
  };
  const skipExpr = (): void => {
    // From just after `${` to its closing brace, skipping nested strings and templates.
    let depth = 1;
    while (i < source.length && depth > 0) {
      const c = source[i];
      if (c === '{') depth++;
      else if (c === '}') depth--;
      else if (c === "'" || c === '"' || c === '`') {
        readLiteral();
        continue;
      }
      i++;
    }
  };
  const readLiteral = (): string => {
    const quote = source[i++];
    let text = '';
    while (i < source.length && source[i] !== quote) {
      if (source[i] === '\\') {
        text += source[i + 1];
        i += 2;
      } else if (quote === '`' && source.startsWith('${', i)) {
        i += 2;
        skipExpr();
        text += '$expr';
      } else text += source[i++];
    }
    i++;
    return text;
  };
  while (i < source.length) {
    const c = source[i];
    if (source.startsWith('//', i)) i = source.indexOf('\n', i) === -1 ? source.length : source.indexOf('\n', i);
    else if (source.startsWith('/*', i)) i = source.indexOf('*/', i) + 2;
    else if (c === "'" || c === '"' || c === '`') {
      push(readLiteral());
      const rest = /^\s*\+\s*/.exec(source.slice(i, i + 200));
      if (rest && /['"`]/.test(source[i + rest[0].length] ?? '')) {
        i += rest[0].length;
        joinNext = true;
      }
    } else i++;
  }
  return out;
}

const SQL =
  /\b(SELECT\b[\s\S]*\bFROM|INSERT\b[\s\S]*\bINTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM|REPLACE\s+INTO|CREATE\s|DROP\s|ALTER\s+TABLE)/;
const NAMING =
  /\b(?:FROM|JOIN|INTO|UPDATE(?:\s+OR\s+[A-Z]+)?|TABLE(?:\s+IF\s+(?:NOT\s+)?EXISTS)?)\s+("?[\w$]+"?)(\s*\()?/g;

/** The tables an SQL statement names (CTE names, table-valued functions and SQLite's own tables left out). */
function tablesOf(sql: string): string[] {
  const ctes = new Set([...sql.matchAll(/(?:\bWITH(?:\s+RECURSIVE)?|,)\s+(\w+)\s+AS\s*\(/g)].map((m) => m[1]));
  const names = new Set<string>();
  for (const m of sql.matchAll(NAMING)) {
    const name = (m[1] ?? '').replace(/"/g, '');
    if (m[2] && !/^(INTO|TABLE)/.test(m[0])) continue; // FROM json_each(…): a function, not a table
    if (ctes.has(name) || /^(SET|SELECT|VALUES|DEFAULT)$/i.test(name) || name.startsWith('sqlite_')) continue;
    names.add(name);
  }
  for (const m of sql.matchAll(/\bFROM\s+\w+(?:\s+\w+)?((?:\s*,\s*\w+(?:\s+\w+)?)+)/g)) {
    for (const part of (m[1] ?? '').split(',').slice(1)) names.add(part.trim().split(/\s+/)[0] ?? '');
  }
  return [...names];
}

/** An FTS5 table's shadow tables (`memories_fts_data`, …) belong to its owner. */
function ownerOf(table: string): string | undefined {
  return OWNERS[table] ?? OWNERS[table.replace(/_(data|idx|content|docsize|config)$/, '')];
}

/** Every (table, file, owner) where a file names a table its store does not own. */
function strangers(file: string, source: string): string[] {
  const found: string[] = [];
  for (const text of literals(source)) {
    if (!SQL.test(text)) continue;
    for (const table of tablesOf(text)) {
      const owner = ownerOf(table);
      if (owner !== file) found.push(`${table} in ${file} (owner: ${owner ?? 'nobody: add it to OWNERS'})`);
    }
  }
  return found;
}

describe('who owns a table', () => {
  it('every table the migrations leave has an owner, and every owner is a store', () => {
    const db = new Database(':memory:');
    migrate(db, migrations);
    const virtual = (
      db.prepare("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL%'").all() as { name: string }[]
    ).map((r) => r.name);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[])
      .map((r) => r.name)
      .filter(
        (n) => !n.startsWith('sqlite_') && n !== 'schema_migrations' && !virtual.some((v) => n.startsWith(`${v}_`)),
      );
    db.close();
    expect(tables.filter((t) => !OWNERS[t])).toEqual([]);
    expect(Object.keys(OWNERS).filter((t) => !tables.includes(t))).toEqual([]);
    for (const owner of new Set(Object.values(OWNERS))) {
      const named = basename(owner).endsWith('-store.ts') || owner.startsWith('platform/store/');
      expect(named, owner).toBe(true);
      expect(readFileSync(join(coreDir, owner), 'utf8'), owner).toMatch(/export class \w+Store\b/);
    }
  });

  it('no production file of core names a table its store does not own', () => {
    const found = productionFiles(coreDir).flatMap((path) =>
      strangers(relative(coreDir, path), readFileSync(path, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('bites: a planted statement over another room’s table is named with its owner', () => {
    const planted = [
      '// SELECT * FROM sessions (a comment is no statement)',
      "const n = db.prepare('SELECT count(*) FROM sessions s ' +",
      "  'JOIN tasks t ON t.id = s.task_id').get();",
      'db.prepare(`INSERT OR REPLACE INTO phone_push (endpoint) VALUES (?) ON CONFLICT (endpoint) DO UPDATE SET x = 1`);',
      "db.exec('WITH recent AS (SELECT id FROM audit) DELETE FROM runs_fts_data WHERE id IN recent');",
      'db.prepare(`INSERT INTO ${table}(x) VALUES (1)`);',
      "const prose = 'Select a session from the list';",
    ].join('\n');
    expect(strangers('platform/names.ts', planted)).toEqual([
      'sessions in platform/names.ts (owner: sessions/session-store.ts)',
      'tasks in platform/names.ts (owner: platform/store/tasks.ts)',
      'phone_push in platform/names.ts (owner: phone/phone-store.ts)',
      'audit in platform/names.ts (owner: audit/audit-store.ts)',
      'runs_fts_data in platform/names.ts (owner: platform/store/runs.ts)',
      '$expr in platform/names.ts (owner: nobody: add it to OWNERS)',
    ]);
    expect(strangers('phone/phone-store.ts', planted)).not.toContain(expect.stringMatching(/^phone_push/));
  });
});
