import { describe, expect, it } from 'vitest';
import {
  isUnrecoverable,
  PageTokenRepeatedError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamResponseError,
} from '../../../src/upstream/errors.js';
import { defaultRetryPolicy, type RetryPolicy, retryDelayMs } from '../../../src/upstream/retry.js';

const policy: RetryPolicy = {
  ...defaultRetryPolicy,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  maxRetryAfterMs: 30_000,
};
const NOW = Date.parse('2025-01-01T00:00:00.000Z');
const at = (value: number) => () => value;
const hints = (h: { retryAfter?: string; rateLimitReset?: string } = {}) => ({ ...h, nowMs: NOW });

describe('retryDelayMs', () => {
  it.each([
    // attempt, random, expected: equal jitter in [d/2, d] with d = min(1000, 100 * 2^(attempt-1))
    { attempt: 1, random: 0, expected: 50 },
    { attempt: 1, random: 0.999_999, expected: 100 },
    { attempt: 2, random: 0, expected: 100 },
    { attempt: 3, random: 0, expected: 200 },
    { attempt: 4, random: 0.5, expected: 600 },
    { attempt: 5, random: 0, expected: 500 }, // d = 1600 capped to 1000
    { attempt: 5, random: 0.999_999, expected: 1_000 },
    { attempt: 60, random: 0.999_999, expected: 1_000 }, // no overflow past the cap
  ])(
    'backs off exponentially with capped equal jitter: attempt $attempt, random $random → $expected ms',
    ({ attempt, random, expected }) => {
      expect(retryDelayMs(attempt, policy, hints(), at(random))).toBe(expected);
    },
  );

  it('stays within [d/2, d] for any jitter value', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const d = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      for (const r of [0, 0.1, 0.5, 0.9, 0.999]) {
        const delay = retryDelayMs(attempt, policy, hints(), at(r));
        expect(delay).toBeGreaterThanOrEqual(d / 2);
        expect(delay).toBeLessThanOrEqual(d);
      }
    }
  });

  it.each([
    { name: 'retry-after in seconds', h: { retryAfter: '7' }, expected: 7_000 },
    { name: 'retry-after with a fraction', h: { retryAfter: '1.5' }, expected: 1_500 },
    { name: 'retry-after of zero', h: { retryAfter: '0' }, expected: 0 },
    {
      name: 'retry-after as an HTTP date',
      h: { retryAfter: new Date(NOW + 12_000).toUTCString() },
      expected: 12_000,
    },
    {
      name: 'retry-after as a date in the past',
      h: { retryAfter: new Date(NOW - 5_000).toUTCString() },
      expected: 0,
    },
    { name: 'ratelimit-reset in seconds', h: { rateLimitReset: '3' }, expected: 3_000 },
    {
      name: 'ratelimit-reset as a Unix time',
      h: { rateLimitReset: String(NOW / 1000 + 4) },
      expected: 4_000,
    },
    {
      name: 'retry-after before ratelimit-reset',
      h: { retryAfter: '2', rateLimitReset: '9' },
      expected: 2_000,
    },
    {
      name: 'an unparsable retry-after falls to ratelimit-reset',
      h: { retryAfter: 'soon', rateLimitReset: '9' },
      expected: 9_000,
    },
  ])('honours the server hint exactly: $name', ({ h, expected }) => {
    expect(retryDelayMs(1, policy, hints(h), at(0))).toBe(expected);
  });

  it('adds at most min(baseDelayMs, 1 s) of jitter to a hint', () => {
    expect(retryDelayMs(1, policy, hints({ retryAfter: '7' }), at(0.999_999))).toBe(7_099);
    const slow = { ...policy, baseDelayMs: 5_000 };
    expect(retryDelayMs(1, slow, hints({ retryAfter: '7' }), at(0.999_999))).toBe(7_999);
  });

  it('never waits more than maxRetryAfterMs, even with jitter', () => {
    expect(retryDelayMs(1, policy, hints({ retryAfter: '30' }), at(0.999_999))).toBe(30_000);
  });

  it.each([
    { name: 'retry-after seconds', h: { retryAfter: '31' } },
    { name: 'retry-after date', h: { retryAfter: new Date(NOW + 3_600_000).toUTCString() } },
    { name: 'ratelimit-reset', h: { rateLimitReset: '86400' } },
  ])('returns Infinity (give up) when the server asks for longer than maxRetryAfterMs: $name', ({ h }) => {
    expect(retryDelayMs(1, policy, hints(h), at(0))).toBe(Number.POSITIVE_INFINITY);
  });

  it('falls back to backoff when the hints are empty or unparsable', () => {
    expect(retryDelayMs(2, policy, hints({ retryAfter: '', rateLimitReset: 'x' }), at(0))).toBe(100);
  });
});

describe('defaultRetryPolicy', () => {
  it('retries 408, 429 and the transient 5xx, nothing else', () => {
    expect([...defaultRetryPolicy.retryableStatuses].sort()).toEqual([408, 429, 500, 502, 503, 504]);
  });
});

describe('isUnrecoverable', () => {
  const http = (status: number) =>
    new UpstreamHttpError({
      method: 'GET',
      path: '/v1/x',
      status,
      retryable: status >= 500 || status === 429,
    });
  const response = (kind: UpstreamResponseError['kind']) =>
    new UpstreamResponseError({ method: 'GET', path: '/v1/x', status: 200, kind });

  it.each([
    { name: '400', err: http(400), expected: true },
    { name: '401', err: http(401), expected: true },
    { name: '403', err: http(403), expected: true },
    { name: '404', err: http(404), expected: true },
    { name: '422', err: http(422), expected: true },
    { name: '301 (redirects are not followed)', err: http(301), expected: true },
    { name: '408', err: http(408), expected: false },
    { name: '429', err: http(429), expected: false },
    { name: '500', err: http(500), expected: false },
    { name: '502', err: http(502), expected: false },
    { name: '503', err: http(503), expected: false },
    { name: 'wrong shape', err: response('shape'), expected: true },
    { name: 'body too large', err: response('too-large'), expected: true },
    { name: 'invalid JSON', err: response('invalid-json'), expected: false },
    { name: 'truncated body', err: response('truncated'), expected: false },
    {
      name: 'network error',
      err: new UpstreamNetworkError({ method: 'GET', path: '/v1/x', attempts: 3, detail: 'ECONNRESET' }),
      expected: false,
    },
    { name: 'repeated page token', err: new PageTokenRepeatedError(3), expected: true },
    { name: 'a plain Error', err: new Error('boom'), expected: false },
    { name: 'a non-error', err: 'boom', expected: false },
  ])('$name → $expected', ({ err, expected }) => {
    expect(isUnrecoverable(err)).toBe(expected);
  });
});

describe('UpstreamHttpError', () => {
  it('says method, path, status, reason and the upstream message', () => {
    const err = new UpstreamHttpError({
      method: 'GET',
      path: '/v1/transactions',
      status: 429,
      retryable: true,
      body: { message: 'Slow down', statusCode: 429, error: 'Too Many Requests' },
    });
    expect(err.message).toBe('[GET] /v1/transactions: 429 Too Many Requests: Slow down');
  });

  it('joins an array message', () => {
    const err = new UpstreamHttpError({
      method: 'GET',
      path: '/v1/networks/mainnet/rewards',
      status: 400,
      retryable: false,
      body: {
        message: ['pageSize must be <= 100', 'addresses is invalid'],
        statusCode: 400,
        error: 'Bad Request',
      },
    });
    expect(err.message).toBe(
      '[GET] /v1/networks/mainnet/rewards: 400 Bad Request: pageSize must be <= 100; addresses is invalid',
    );
  });
});
