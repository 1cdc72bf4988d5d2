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
    const search = (match: string) => {
      seen.push(match);
      return match.includes('AND') ? [] : [{ id: '1' }];
    };
    expect(searchAllThenAny('blue green', 5, search)).toEqual([{ id: '1' }]);
    expect(seen).toEqual(['"blue" AND "green"', '"blue" OR "green"']);
  });
});
