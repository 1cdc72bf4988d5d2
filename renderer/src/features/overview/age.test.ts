import { describe, expect, it } from 'vitest';
import { age } from './age';

describe('age', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  it.each([
    ['2026-11-29T11:59:50Z', 'just now'],
    ['2026-11-29T11:56:00Z', '4 min'],
    ['2026-11-29T10:00:00Z', '2 h'],
    ['2026-11-26T12:00:00Z', '3 d'],
  ])('shows %s as %s', (since, text) => {
    expect(age(since, now)).toBe(text);
  });
  it('shows nothing when the time is unknown', () => {
    expect(age(null, now)).toBe('');
  });
});
