import { describe, expect, it } from 'vitest';
import { conflictHunks } from './radar-git';

describe('conflict hunks from a merged file', () => {
  it("gives each marker block's lines in either side's version", () => {
    const merged = [
      '1',
      '<<<<<<< a',
      'A2',
      'A3',
      '=======',
      'B2',
      '>>>>>>> b',
      '4',
      '5',
      '<<<<<<< a',
      '=======',
      'B6',
      '>>>>>>> b',
      '',
    ].join('\n');
    expect(conflictHunks(merged)).toEqual([
      { ours: { start: 2, lines: 2 }, theirs: { start: 2, lines: 1 } },
      { ours: { start: 6, lines: 0 }, theirs: { start: 5, lines: 1 } },
    ]);
  });

  it('counts a diff3 base section for neither side, and finds none in a file without markers', () => {
    const merged = ['<<<<<<< a', 'A', '||||||| base', 'O', '=======', 'B', '>>>>>>> b', 'x'].join('\n');
    expect(conflictHunks(merged)).toEqual([{ ours: { start: 1, lines: 1 }, theirs: { start: 1, lines: 1 } }]);
    expect(conflictHunks('plain\n=======\ntext\n')).toEqual([]);
  });
});
