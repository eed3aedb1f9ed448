/**
 * The basic-auth check of the metrics server (src/metrics/basic-auth.ts) over the real bcrypt
 * thread (bcrypt-checker.ts): what is cached and for how long, which hash an unknown user is checked
 * against, and the bound of checks in flight. The checker is the real one, wrapped to record which
 * hash each check was asked about; time is a counter the test moves.
 */
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { bcryptCost } from '../../src/config/web-config.js';
import { createBasicAuth, parseBasic } from '../../src/metrics/basic-auth.js';
import {
  type BcryptChecker,
  type BcryptLane,
  createBcryptChecker,
} from '../../src/metrics/bcrypt-checker.js';
import { basicAuth } from '../support/web-config.js';

const checkers: BcryptChecker[] = [];
afterEach(async () => {
  for (const c of checkers.splice(0)) await c.close();
});

/** The real checker, recording the cost and lane of every check it runs (not those it refuses). */
function recordingChecker(bounds?: Partial<Record<BcryptLane, number>>) {
  const real = createBcryptChecker(bounds ? { bounds } : {});
  checkers.push(real);
  const asked: { cost: number; lane: BcryptLane }[] = [];
  const checker: BcryptChecker = {
    compare(password, hash, lane, signal) {
      const pending = real.compare(password, hash, lane, signal);
      if (pending) asked.push({ cost: bcryptCost(hash), lane });
      return pending;
    },
    pending: () => real.pending(),
    close: () => real.close(),
  };
  return { checker, asked };
}

const hash5 = bcrypt.hashSync('five', 5);
const hash4 = bcrypt.hashSync('four', 4);

describe('basic auth of the metrics server', () => {
  it('an unknown user is checked against a hash of the configured cost, not a fixed cost of 10', async () => {
    // htpasswd -B makes cost 5: a dummy of cost 10 answered 20 times slower than a real user.
    const { checker, asked } = recordingChecker();
    const auth = createBasicAuth({ users: { alice: hash5 }, checker });
    expect(await auth.check(basicAuth('mallory:guess'))).toBe('unauthorized');
    expect(await auth.check(basicAuth('alice:guess'))).toBe('unauthorized');
    expect(asked.map((a) => a.cost)).toEqual([5, 5]);
  });

  it('with users of several costs, each unknown name gets one of them, always the same one', async () => {
    const { checker, asked } = recordingChecker();
    const auth = createBasicAuth({ users: { alice: hash5, bob: hash4 }, checker });
    const names = Array.from({ length: 24 }, (_, i) => `user${i}`);
    for (const name of names) await auth.check(basicAuth(`${name}:a`));
    for (const name of names) await auth.check(basicAuth(`${name}:b`));
    const costs = asked.map((a) => a.cost);
    expect(new Set(costs)).toEqual(new Set([4, 5]));
    // The same name, another password: the same cost (a name's timing does not vary).
    expect(costs.slice(24)).toEqual(costs.slice(0, 24));
  });

  it('caches a verified credential for its TTL, then checks it again ahead of new credentials', async () => {
    const { checker, asked } = recordingChecker();
    let now = 0;
    const auth = createBasicAuth({ users: { alice: hash5 }, checker, now: () => now, ttlMs: 1_000 });
    expect(await auth.check(basicAuth('alice:five'))).toBe('ok');
    expect(await auth.check(basicAuth('alice:five'))).toBe('ok');
    now = 999;
    expect(await auth.check(basicAuth('alice:five'))).toBe('ok');
    expect(asked).toEqual([{ cost: 5, lane: 'untrusted' }]);
    now = 1_001;
    expect(await auth.check(basicAuth('alice:five'))).toBe('ok');
    expect(asked).toEqual([
      { cost: 5, lane: 'untrusted' },
      { cost: 5, lane: 'renewal' },
    ]);
  });

  it('caches a refused credential too: a repeated wrong password costs one check per TTL', async () => {
    const { checker, asked } = recordingChecker();
    let now = 0;
    const auth = createBasicAuth({ users: { alice: hash5 }, checker, now: () => now, ttlMs: 1_000 });
    for (let i = 0; i < 5; i++) expect(await auth.check(basicAuth('alice:wrong'))).toBe('unauthorized');
    for (let i = 0; i < 5; i++) expect(await auth.check(basicAuth('nobody:wrong'))).toBe('unauthorized');
    expect(asked).toHaveLength(2);
    now = 1_001;
    expect(await auth.check(basicAuth('alice:wrong'))).toBe('unauthorized');
    expect(asked).toHaveLength(3);
  });

  it('a rotated password: the old one stops working at once, the new one works', async () => {
    const { checker } = recordingChecker();
    const auth = createBasicAuth({ users: { alice: hash5 }, checker });
    expect(await auth.check(basicAuth('alice:five'))).toBe('ok');
    auth.setUsers({ alice: hash4 });
    expect(await auth.check(basicAuth('alice:five'))).toBe('unauthorized');
    expect(await auth.check(basicAuth('alice:four'))).toBe('ok');
    // A refusal cached under the old hash does not outlive it either.
    auth.setUsers({ alice: hash5 });
    expect(await auth.check(basicAuth('alice:four'))).toBe('unauthorized');
    expect(await auth.check(basicAuth('alice:five'))).toBe('ok');
    auth.setUsers({});
    expect(await auth.check(undefined)).toBe('ok');
  });

  it('past the bound of checks in flight a check is refused at once, without running; the renewal lane has its own', async () => {
    const slow = bcrypt.hashSync('slow', 12);
    const { checker, asked } = recordingChecker({ untrusted: 2, renewal: 1 });
    let now = 0;
    const auth = createBasicAuth({ users: { alice: slow }, checker, now: () => now, ttlMs: 1_000 });
    expect(await auth.check(basicAuth('alice:slow'))).toBe('ok');
    now = 2_000; // alice's entry expired: her next check goes through the renewal lane
    const flood = Array.from({ length: 6 }, (_, i) => auth.check(basicAuth(`alice:wrong-${i}`)));
    const renewal = auth.check(basicAuth('alice:slow'));
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(4);
    expect(outcomes.filter((o) => o === 'unauthorized')).toHaveLength(2);
    expect(await renewal).toBe('ok');
    // The refused ones never reached the thread: one check to start, two wrong ones, one renewal.
    expect(asked).toHaveLength(4);
    expect(checker.pending()).toEqual({ renewal: 0, untrusted: 0 });
  });

  it('a client that leaves while its check waits takes the check with it', async () => {
    const slow = bcrypt.hashSync('slow', 12);
    const { checker } = recordingChecker({ untrusted: 2 });
    const auth = createBasicAuth({ users: { alice: slow }, checker });
    const first = auth.check(basicAuth('alice:one'));
    const left = new AbortController();
    const second = auth.check(basicAuth('alice:two'), left.signal);
    expect(checker.pending().untrusted).toBe(2);
    left.abort();
    expect(checker.pending().untrusted).toBe(1);
    expect(await second).toBe('unauthorized');
    expect(await first).toBe('unauthorized');
  });

  it.each([
    ['Basic YWxpY2U6cHc=', { user: 'alice', password: 'pw' }],
    ['basic   YWxpY2U6cDp3', { user: 'alice', password: 'p:w' }],
    ['Basic YWxpY2U=', undefined], // no colon
    ['Bearer YWxpY2U6cHc=', undefined],
    ['Basic YWxp Y2U6cHc=', undefined],
    ['', undefined],
  ])('reads the Authorization header %j', (header, expected) => {
    expect(parseBasic(header)).toEqual(expected);
  });
});
