/**
 * Page tokens: opaque random UUIDs kept server-side with the query they belong to and a keyset
 * position, so a page continues right after the previous one even while new items arrive on top.
 * A token is refused (400) when unknown, expired, or presented with other filters than its own.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../runtime/clock.js';
import { badRequest } from './http.js';

export interface TokenStore<P> {
  issue(scope: string, filterKey: string, position: P): string;
  /** The stored position; throws the 400 the real API would answer. */
  resolve(token: string, scope: string, filterKey: string): P;
  /** Tokens held now. */
  size(): number;
}

export interface TokenStoreDeps {
  clock: Clock;
  ttlMs: number;
  /**
   * Tokens kept at most; the oldest go first (a collector only ever holds its latest one), so a
   * simulator that runs for weeks keeps a bounded number. @defaultValue 10000
   */
  maxTokens?: number;
}

interface Entry<P> {
  scope: string;
  filterKey: string;
  position: P;
  expiresAt: number;
}

export function createTokenStore<P>(deps: TokenStoreDeps): TokenStore<P> {
  const entries = new Map<string, Entry<P>>();
  const maxTokens = deps.maxTokens ?? 10_000;

  /**
   * Drops the expired tokens and those over maxTokens. Map iteration follows insertion order, and
   * expiry grows with it: the loop stops at the first live token, so issuing costs O(1) amortised.
   * An expired token that was dropped reads as unknown (400 'Invalid pageToken').
   */
  function evict(now: number): void {
    for (const [token, entry] of entries) {
      if (entries.size <= maxTokens && entry.expiresAt >= now) break;
      entries.delete(token);
    }
  }

  return {
    issue(scope, filterKey, position) {
      const now = deps.clock.now();
      const token = randomUUID();
      evict(now);
      entries.set(token, { scope, filterKey, position, expiresAt: now + deps.ttlMs });
      if (entries.size > maxTokens) evict(now);
      return token;
    },
    resolve(token, scope, filterKey) {
      const entry = entries.get(token);
      if (!entry || entry.scope !== scope) throw badRequest('Invalid pageToken');
      if (deps.clock.now() > entry.expiresAt) {
        entries.delete(token);
        throw badRequest('The pageToken has expired');
      }
      if (entry.filterKey !== filterKey) {
        throw badRequest('The pageToken does not match the query parameters it was issued for');
      }
      return entry.position;
    },
    size: () => entries.size,
  };
}
