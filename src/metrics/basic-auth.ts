/**
 * The basic-auth check of `/metrics` and `/readyz` against the web config's bcrypt hashes, built so
 * that a flood costs the attacker, not the service (exporter-toolkit's web/handler.go and
 * web/cache.go are the model):
 *
 * - Results are cached under an HMAC of the credentials with a key of this process (never the
 *   password itself), with the user and the hash they were checked against, for CREDENTIAL_TTL_MS:
 *   a scraping Prometheus costs one bcrypt check per TTL, a repeated wrong password one per TTL. An
 *   entry counts only while the user's hash is still the one it was checked against, so a rotated
 *   or removed password stops working with the next request after the web config is re-read.
 * - bcrypt runs in a worker thread with a small bound on checks in flight (bcrypt-checker.ts): past
 *   it the request is refused at once ('busy', answered 429), nothing queued.
 * - An unknown user is checked against a dummy hash whose cost is drawn, per user name, from the
 *   costs of the configured users: an unknown name takes as long as a known one (with a cost of 5
 *   the dummy of cost 10 answered in 74 ms, a real user in 3.7 ms: the names leaked).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { bcryptCost } from '../config/web-config.js';
import type { BcryptChecker, BcryptLane } from './bcrypt-checker.js';

export type AuthOutcome = 'ok' | 'unauthorized' | 'busy';

export interface BasicAuth {
  /** The verdict on a request's Authorization header. */
  check(header: string | undefined, signal?: AbortSignal): Promise<AuthOutcome>;
  /** Replaces the users (a web config re-read); entries checked against an old hash stop counting. */
  setUsers(users: Record<string, string>): void;
}

/** How long a verified (or refused) credential is remembered. */
export const CREDENTIAL_TTL_MS = 5 * 60_000;
/** Credentials remembered: exporter-toolkit's 100 verified ones, and more refused ones (each costs the attacker a bcrypt check). */
export const CACHED_VERIFIED = 100;
export const CACHED_REFUSED = 1000;

interface Entry {
  user: string;
  /** The hash the password was checked against (the user's, or the dummy of an unknown user). */
  hash: string;
  until: number;
}

export interface BasicAuthOptions {
  users: Record<string, string>;
  checker: BcryptChecker;
  /** @defaultValue performance.now */
  now?: () => number;
  /** @defaultValue CREDENTIAL_TTL_MS */
  ttlMs?: number;
}

export function createBasicAuth(options: BasicAuthOptions): BasicAuth {
  const now = options.now ?? (() => performance.now());
  const ttl = options.ttlMs ?? CREDENTIAL_TTL_MS;
  // The cache's key is an HMAC under a key that never leaves this process: what is kept in memory
  // cannot be tried offline against a password list.
  const secret = randomBytes(32);
  const digest = (text: string) => createHmac('sha256', secret).update(text).digest('base64');
  const verified = new Map<string, Entry>();
  const refused = new Map<string, Entry>();
  let users: Record<string, string> = {};
  let costs: number[] = [];
  const dummies = new Map<number, string>();

  const setUsers = (next: Record<string, string>) => {
    users = { ...next };
    costs = Object.values(users)
      .map(bcryptCost)
      .sort((a, b) => a - b);
  };
  setUsers(options.users);

  /** The hash an unknown user is checked against: a cost drawn from the real users' by its name. */
  const dummyFor = (user: string): string => {
    const pick = createHmac('sha256', secret).update(`cost\0${user}`).digest().readUInt32BE(0);
    const cost = costs[pick % costs.length] as number;
    let dummy = dummies.get(cost);
    if (!dummy) {
      dummy = dummyHash(cost);
      dummies.set(cost, dummy);
    }
    return dummy;
  };
  const hashOf = (user: string) => (Object.hasOwn(users, user) ? (users[user] as string) : dummyFor(user));

  const remember = (map: Map<string, Entry>, bound: number, key: string, entry: Entry) => {
    map.delete(key);
    if (map.size >= bound) map.delete(map.keys().next().value as string);
    map.set(key, entry);
  };

  return {
    setUsers,
    async check(header, signal) {
      if (costs.length === 0) return 'ok';
      const credentials = parseBasic(header);
      if (!credentials) return 'unauthorized';
      const { user, password } = credentials;
      const key = digest(`${user}\0${password}`);
      const hash = hashOf(user);
      const known = Object.hasOwn(users, user);

      const refusal = refused.get(key);
      if (refusal && refusal.hash === hash && refusal.user === user && refusal.until > now()) {
        return 'unauthorized';
      }
      const entry = verified.get(key);
      const current = entry !== undefined && entry.hash === hash && entry.user === user;
      if (current && entry.until > now()) return 'ok';
      if (entry && !current) verified.delete(key);

      // A credential verified before (its entry expired) is checked again ahead of the others.
      const lane: BcryptLane = current ? 'renewal' : 'untrusted';
      const pending = options.checker.compare(password, hash, lane, signal);
      if (!pending) return 'busy';
      const ok = (await pending) && known;
      // The users may have changed while the thread worked: only a still-current hash is remembered.
      if (hashOf(user) === hash && !signal?.aborted) {
        if (ok) remember(verified, CACHED_VERIFIED, key, { user, hash, until: now() + ttl });
        else remember(refused, CACHED_REFUSED, key, { user, hash, until: now() + ttl });
      }
      return ok ? 'ok' : 'unauthorized';
    },
  };
}

/** User and password of a `Basic` Authorization header (RFC 7617), or undefined. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A well-formed bcrypt hash of `cost` that no password matches (its 53 characters of salt and hash
 * are random): checking it costs exactly what checking a real hash of that cost does.
 */
export function dummyHash(cost: number): string {
  const chars = Array.from(randomBytes(53), (b) => BCRYPT_ALPHABET[b % 64]).join('');
  return `$2b$${String(cost).padStart(2, '0')}$${chars}`;
}
