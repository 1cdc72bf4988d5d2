import { describe, expect, it } from 'vitest';
import { estimateShort, estimateWords, tokensShort, usd } from './usage-words';

describe('usage in words', () => {
  it('calls money an estimate and names the models without a price', () => {
    expect(estimateWords({ usd: 1.234, unpricedModels: [], unpricedTokens: 0 })).toBe('≈ $1.23 (estimate)');
    expect(estimateWords({ usd: 0, unpricedModels: ['mystery-1'], unpricedTokens: 1520 })).toBe(
      '≈ $0.00 (estimate; no price for mystery-1: 1,520 tokens not in it)',
    );
    expect(estimateShort({ usd: 0.001, unpricedModels: ['x'], unpricedTokens: 3 })).toBe('<$0.01+?');
  });

  it('shortens counts and amounts for a narrow column', () => {
    expect(estimateShort({ usd: 7.5, unpricedModels: [], unpricedTokens: 0 })).toBe('≈$7.50');
    expect([950, 1234, 56_789, 4_100_000, 42_000_000].map(tokensShort)).toEqual(['950', '1.2k', '57k', '4.1M', '42M']);
    expect([0, 0.004, 0.005, 12.345].map(usd)).toEqual(['$0.00', '< $0.01', '$0.01', '$12.35']);
  });
});
