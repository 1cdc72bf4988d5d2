import { describe, expect, it } from 'vitest';
import type { ModelPrice } from '../../../shared/contract/usage';
import { csvField, named, usageCsv } from './usage-csv';
import type { SessionDayModel } from './usage-store';

const price: ModelPrice = {
  model: 'gpt-5',
  input: 1.25,
  output: 10,
  cacheWrite: 1.25,
  cacheRead: 0.125,
  origin: 'list',
  source: null,
  asOf: null,
  listPrice: null,
};

const row = (fields: Partial<SessionDayModel>): SessionDayModel => ({
  sessionId: 's1',
  sessionName: 'one',
  workspaceId: 'w1',
  workspaceName: 'ws',
  agent: 'codex',
  taskId: null,
  taskTitle: null,
  day: '2026-12-01',
  model: 'gpt-5',
  requests: 1,
  input: 1_000_000,
  output: 0,
  cacheWrite: 0,
  cacheRead: 0,
  ...fields,
});

/** A minimal RFC 4180 reader: what a spreadsheet would see in each cell. */
function parse(csv: string): string[][] {
  const rows: string[][] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  const endCell = () => {
    cells.push(cell);
    cell = '';
  };
  while (i < csv.length) {
    const c = csv[i] ?? '';
    if (quoted && c === '"' && csv[i + 1] === '"') {
      cell += '"';
      i += 2;
      continue;
    }
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === ',') endCell();
    else if (!quoted && c === '\r' && csv[i + 1] === '\n') {
      endCell();
      rows.push(cells);
      cells = [];
      i += 1;
    } else cell += c;
    i += 1;
  }
  return rows;
}

describe('the usage CSV', () => {
  it('quotes commas, quotes and line breaks, and makes a formula-looking text plain text', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    for (const f of ["=cmd|' /C calc'!A0", '+1', '-2+3', '@SUM(A1)', '\tx', '\rx'])
      expect(csvField(f), JSON.stringify(f)).toBe(`"'${f.replace(/"/g, '""')}"`);
    expect(csvField(12)).toBe('12');
    expect(csvField(false)).toBe('false');
    expect(csvField(null)).toBe('');
  });

  it('has one row per session and day, its models summed and priced, and says when a price was unknown', () => {
    const { csv, rows } = usageCsv(
      [
        row({ workspaceName: 'team, "a"', sessionName: '=cmd', taskTitle: 'fix\nit', taskId: 't1' }),
        row({ model: 'mystery', input: 10, requests: 2 }),
        row({ day: '2026-12-02', output: 100_000, input: 0 }),
        row({ sessionId: 's-gone', sessionName: null, workspaceName: null, agent: 'claude' }),
      ],
      [price],
    );
    expect(rows).toBe(3);
    expect(parse(csv)).toEqual([
      [
        'workspace',
        'session',
        'agent',
        'task',
        'day',
        'input_tokens',
        'output_tokens',
        'cache_write_tokens',
        'cache_read_tokens',
        'requests',
        'estimate_usd',
        'price_known',
      ],
      ['team, "a"', "'=cmd", 'codex', 'fix\nit', '2026-12-01', '1000010', '0', '0', '0', '3', '1.250000', 'false'],
      ['ws', 'one', 'codex', '', '2026-12-02', '0', '100000', '0', '0', '1', '1.000000', 'true'],
      ['w1', 's-gone', 'claude', '', '2026-12-01', '1000000', '0', '0', '0', '1', '1.250000', 'true'],
    ]);
  });
});

describe('usage rows named', () => {
  it("puts each row's names in from their rooms' lookups and orders by day, workspace, session, model", () => {
    const ids = ({ sessionName: _s, workspaceName: _w, taskTitle: _t, ...r }: SessionDayModel) => r;
    const rows = [
      row({ day: '2026-12-02', sessionId: 's1', workspaceId: 'w1' }),
      row({ sessionId: 's2', workspaceId: 'w2', model: 'b', taskId: 't1' }),
      row({ sessionId: 's2', workspaceId: 'w2', model: 'a' }),
      row({ sessionId: 's1', workspaceId: 'w1' }),
      row({ sessionId: 'gone', workspaceId: 'w1' }),
    ].map(ids);
    const calls: string[] = [];
    const out = named(rows, {
      workspaceName: (id) => (calls.push(id), ({ w1: 'zeta', w2: 'alpha' } as Record<string, string>)[id] ?? null),
      sessionName: (id) => (({ s1: 'one', s2: 'two' }) as Record<string, string>)[id] ?? null,
      taskTitle: (id) => (id === 't1' ? 'fix it' : null),
    });
    expect(out.map((r) => [r.day, r.workspaceName, r.sessionName, r.model, r.taskTitle])).toEqual([
      ['2026-12-01', 'alpha', 'two', 'a', null],
      ['2026-12-01', 'alpha', 'two', 'b', 'fix it'],
      ['2026-12-01', 'zeta', null, 'gpt-5', null],
      ['2026-12-01', 'zeta', 'one', 'gpt-5', null],
      ['2026-12-02', 'zeta', 'one', 'gpt-5', null],
    ]);
    // Each workspace is looked up once for the whole export.
    expect(calls.sort()).toEqual(['w1', 'w2']);
  });
});
