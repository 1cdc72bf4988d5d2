import { describe, expect, it } from 'vitest';
import { duration, endsTurn, usageLimitReset } from './usage-limit-parse';

const now = new Date('2026-12-06T01:00:00.000Z');
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe('when a usage limit resets, from the provider’s own 429', () => {
  it('reads Anthropic’s retry-after, else the latest reset of the limits used up', () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });
    expect(usageLimitReset(429, { 'retry-after': '20' }, body, now)).toEqual(at(20));
    const headers = {
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': at(40).toISOString(),
      'anthropic-ratelimit-tokens-remaining': '5000',
      'anthropic-ratelimit-tokens-reset': at(90).toISOString(),
      'anthropic-ratelimit-input-tokens-reset': at(10).toISOString(),
    };
    // The tokens limit has room: its later reset is not the one that holds the session.
    expect(usageLimitReset(429, headers, body, now)).toEqual(at(40));
    // A Claude subscription's unified limit: Unix seconds and a status.
    const unified = {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(Math.floor(at(3600).getTime() / 1000)),
    };
    expect(usageLimitReset(429, unified, body, now)).toEqual(at(3600));
  });

  it('reads OpenAI’s retry-after-ms and x-ratelimit-reset-* durations', () => {
    const body = JSON.stringify({ error: { type: 'rate_limit_exceeded', message: 'Rate limit reached' } });
    expect(usageLimitReset(429, { 'retry-after-ms': '1500', 'retry-after': '9' }, body, now)).toEqual(at(1.5));
    const headers = {
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '6m0s',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '1m30.5s',
    };
    expect(usageLimitReset(429, headers, body, now)).toEqual(at(360));
  });

  it('reads Codex’s usage limit: resets_at first, resets_in_seconds, its window headers', () => {
    const resetsAt = Math.floor(at(20).getTime() / 1000);
    const usage = (fields: object) =>
      JSON.stringify({ error: { type: 'usage_limit_reached', message: 'You have hit your usage limit.', ...fields } });
    // The body's time beats a retry-after that says something else.
    expect(usageLimitReset(429, { 'retry-after': '3' }, usage({ resets_at: resetsAt }), now)).toEqual(at(20));
    expect(usageLimitReset(429, {}, usage({ resets_in_seconds: 95 }), now)).toEqual(at(95));
    const windows = {
      'x-codex-primary-used-percent': '100',
      'x-codex-primary-reset-after-seconds': '300',
      'x-codex-secondary-used-percent': '40',
      'x-codex-secondary-reset-after-seconds': '86400',
    };
    expect(usageLimitReset(429, windows, usage({}), now)).toEqual(at(300));
  });

  it('reads Google’s RESOURCE_EXHAUSTED with a RetryInfo delay', () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: 'Quota exceeded',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20.5s' },
        ],
      },
    });
    expect(usageLimitReset(429, {}, body, now)).toEqual(at(20.5));
  });

  it('gives no time it does not know: another status, no reset named, a time past or years ahead, a body cut', () => {
    expect(usageLimitReset(500, { 'retry-after': '20' }, '', now)).toBeNull();
    expect(usageLimitReset(429, {}, JSON.stringify({ error: { type: 'insufficient_quota' } }), now)).toBeNull();
    expect(usageLimitReset(429, { 'retry-after': '0' }, '', now)).toBeNull();
    expect(usageLimitReset(429, { 'retry-after': String(400 * 24 * 3600) }, '', now)).toBeNull();
    expect(usageLimitReset(429, { 'retry-after': 'soon' }, '{"error":{"resets_at":', now)).toBeNull();
    expect(usageLimitReset(429, { 'retry-after': new Date(at(30)).toUTCString() }, '', now)).toEqual(at(30));
  });

  it('knows the 429s a CLI gives up at instead of retrying: Codex’s usage limit, not a rate limit', () => {
    const body = (type: string) => JSON.stringify({ error: { type, message: 'm' } });
    expect(endsTurn(429, body('usage_limit_reached'))).toBe(true);
    expect(endsTurn(429, body('usage_not_included'))).toBe(true);
    expect(endsTurn(429, body('rate_limit_exceeded'))).toBe(false);
    expect(endsTurn(429, body('rate_limit_error'))).toBe(false);
    expect(endsTurn(400, body('usage_limit_reached'))).toBe(false);
    expect(endsTurn(429, '{"error":')).toBe(false);
  });

  it('reads Go-style durations and nothing else', () => {
    expect(duration('250ms')).toBe(250);
    expect(duration('1h2m3.5s')).toBe(3_723_500);
    expect(duration('20')).toBeNull();
    expect(duration('5 minutes')).toBeNull();
  });
});
