import { describe, expect, it } from 'vitest';
import { ftsQueries, searchAllThenAny } from './fts';

describe('full-text queries from agent text', () => {
  it('turns FTS operators, quotes and column filters into plain quoted words', () => {
    expect(ftsQueries('content: "deploy" OR NEAR(x y) *')).toEqual({
      all: '"content" AND "deploy" AND "or" AND "near" AND "x" AND "y"',
      any: '"content" OR "deploy" OR "or" OR "near" OR "x" OR "y"',
    });
    expect(ftsQueries('  ?!  ')).toBeNull();
  });

  it('searches with every word first and with any word only when that finds nothing', () => {
    const seen: string[] = [];
    const search = (match: string, _limit: number, ranked: boolean) => {
      seen.push(`${ranked ? 'ranked' : 'probe'} ${match}`);
      return match.includes('AND') ? [] : [{ id: '1' }];
    };
    expect(searchAllThenAny('blue green', 5, search)).toEqual([{ id: '1' }]);
    expect(seen).toEqual(['probe "blue" AND "green"', 'ranked "blue" OR "green"']);
  });

  it('ranks the precise matches only when there are several to order', () => {
    const rows = { one: [{ id: 'a' }], many: [{ id: 'b' }, { id: 'c' }, { id: 'd' }] };
    const calls: string[] = [];
    const search = (which: keyof typeof rows) => (_m: string, limit: number, ranked: boolean) => {
      calls.push(`${ranked ? 'ranked' : 'probe'}:${limit}`);
      return rows[which].slice(0, limit);
    };
    expect(searchAllThenAny('blue green', 5, search('one'))).toEqual([{ id: 'a' }]);
    expect(calls.splice(0)).toEqual(['probe:2']);
    expect(searchAllThenAny('blue green', 5, search('many'))).toEqual(rows.many);
    expect(calls).toEqual(['probe:2', 'ranked:5']);
  });
});
