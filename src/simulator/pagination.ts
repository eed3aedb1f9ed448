/**
 * Page tokens: opaque to a client, but nothing is kept server-side. A token carries its list, a
 * digest of the query it belongs to, a keyset position and its expiry, sealed with an HMAC keyed by
 * the seed; so a page continues right after the previous one even while new items arrive on top,
 * and a simulator that serves pages for weeks holds no token at all (tokens also survive its
 * restart, as a pure function of seed and clock should). A token is refused (400) when it is not
 * one of ours, expired, or presented with other filters than its own.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../runtime/clock.js';
import { badRequest } from './http.js';

export interface TokenCodec<P> {
  issue(scope: string, filterKey: string, position: P): string;
  /** The position the token carries; throws the 400 the real API would answer. */
  resolve(token: string, scope: string, filterKey: string): P;
}

export interface TokenCodecDeps<P> {
  seed: number;
  clock: Clock;
  ttlMs: number;
  /** Whether a decoded value is a position of this list (a sealed token always is; this is a guard). */
  isPosition: (value: unknown) => value is P;
}

/** Bytes of the MAC kept in a token: enough that a guessed or altered token is refused. */
const MAC_BYTES = 16;

/** [scope, digest of the filters, position, expiresAt ms] */
type Sealed = [string, string, unknown, number];

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);

export function createTokenCodec<P>(deps: TokenCodecDeps<P>): TokenCodec<P> {
  const key = createHash('sha256').update(`page-token:${deps.seed}`).digest();
  const mac = (body: string) => createHmac('sha256', key).update(body).digest().subarray(0, MAC_BYTES);

  function open(token: string): Sealed | undefined {
    const dot = token.indexOf('.');
    if (dot < 0) return undefined;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(body))) return undefined;
    const sealed: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return Array.isArray(sealed) && sealed.length === 4 ? (sealed as Sealed) : undefined;
  }

  return {
    issue(scope, filterKey, position) {
      const sealed: Sealed = [scope, digest(filterKey), position, deps.clock.now() + deps.ttlMs];
      const body = Buffer.from(JSON.stringify(sealed)).toString('base64url');
      return `${body}.${mac(body).toString('base64url')}`;
    },
    resolve(token, scope, filterKey) {
      const sealed = open(token);
      if (!sealed || sealed[0] !== scope || !deps.isPosition(sealed[2])) {
        throw badRequest('Invalid pageToken');
      }
      if (deps.clock.now() > sealed[3]) throw badRequest('The pageToken has expired');
      if (sealed[1] !== digest(filterKey)) {
        throw badRequest('The pageToken does not match the query parameters it was issued for');
      }
      return sealed[2];
    },
  };
}
