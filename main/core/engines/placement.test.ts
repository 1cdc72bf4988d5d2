import { describe, expect, it } from 'vitest';
import { leastLoaded } from './placement';

describe('placing a new workspace', () => {
  it('picks the reachable engine with the fewest running sessions', () => {
    expect(
      leastLoaded(
        ['local', 'big', 'small'],
        new Map([
          ['local', 4],
          ['big', 1],
          ['small', 2],
        ]),
      ),
    ).toBe('big');
    expect(leastLoaded(['local', 'big'], new Map([['local', 3]]))).toBe('big');
  });

  it('keeps the local engine on a tie, then the older remote one', () => {
    expect(leastLoaded(['local', 'big', 'small'], new Map())).toBe('local');
    expect(
      leastLoaded(
        ['big', 'small'],
        new Map([
          ['big', 1],
          ['small', 1],
        ]),
      ),
    ).toBe('big');
  });

  it('finds nothing when no engine is reachable', () => {
    expect(leastLoaded([], new Map([['local', 0]]))).toBeNull();
  });
});
