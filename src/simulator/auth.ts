/**
 * API keys and compute-unit budgets. The key travels in `x-glacier-api-key`; it is optional unless
 * `requireApiKey` is set. Budgets are fixed windows of clock time: 60 s (the per-minute budget of the
 * tier, README.md "Rate limits") and one UTC day. Keyless requests share one bucket, as they share an
 * IP budget upstream. Keys are held only as sha256 digests: never logged, never echoed.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../runtime/clock.js';
import { type TierName, tiers } from '../upstream/endpoints.js';

export interface ApiKeyConfig {
  /** @defaultValue 'Free' */
  tier?: TierName;
  /** Orgs the key may read usage metrics of. @defaultValue one org id derived from the key */
  orgIds?: string[];
  /** Overrides the tier's per-minute budget (tests use a tiny one). */
  computeUnitsPerMinute?: number;
}

export interface Account {
  /** Bucket id: a digest of the key, or 'anonymous'. */
  id: string;
  keyed: boolean;
  tier: TierName;
  perMinute: number;
  perDay: number;
  /** Orgs this account may ask for; undefined = any. */
  orgIds: readonly string[] | undefined;
  /** The org reported when apiUsageMetrics is asked without orgId. */
  defaultOrgId: string;
}

export type Identity =
  | { kind: 'ok'; account: Account }
  | { kind: 'missing'; account: Account }
  | { kind: 'unknown'; account: Account };

export type Charge = { ok: true } | { ok: false; resetSeconds: number };

export interface Auth {
  identify(apiKey: string | undefined): Identity;
  charge(account: Account, computeUnits: number): Charge;
  /** The ratelimit-* headers of an answer to a keyed request. */
  headers(account: Account): Record<string, string>;
  /** Keys whose budget is tracked now. */
  size(): number;
}

export interface AuthDeps {
  clock: Clock;
  seed: number;
  apiKeys?: Readonly<Record<string, ApiKeyConfig>>;
  requireApiKey?: boolean;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/**
 * Keys tracked at most. Without configured keys any key is accepted, so a client sending a new key
 * per request would otherwise grow the maps for ever; the key unseen for longest is forgotten first
 * (its budget starts afresh if it comes back).
 */
export const MAX_TRACKED_KEYS = 10_000;

interface Usage {
  minute: number;
  usedMinute: number;
  day: number;
  usedDay: number;
}

export function createAuth(deps: AuthDeps): Auth {
  const usage = new Map<string, Usage>();
  const defaultOrg = `org-${createHash('sha256').update(`org:${deps.seed}`).digest('hex').slice(0, 12)}`;
  const anonymous: Account = {
    id: 'anonymous',
    keyed: false,
    tier: 'none',
    perMinute: tiers.none.perMinute,
    perDay: tiers.none.perDay,
    // Without a key there is no org to vouch for: with configured keys, asking for an org is refused.
    orgIds: deps.apiKeys ? [] : undefined,
    defaultOrgId: defaultOrg,
  };
  const accounts = new Map<string, Account>();

  function accountFor(key: string, config: ApiKeyConfig | undefined): Account {
    const id = createHash('sha256').update(key).digest('hex');
    const cached = accounts.get(id);
    if (cached) {
      // Re-inserted, so the map's order is the order of last use.
      accounts.delete(id);
      accounts.set(id, cached);
      return cached;
    }
    for (const oldest of accounts.keys()) {
      if (accounts.size < MAX_TRACKED_KEYS) break;
      accounts.delete(oldest);
      usage.delete(oldest);
    }
    const tier = config?.tier ?? 'Free';
    const ownOrg = `org-${id.slice(0, 12)}`;
    const account: Account = {
      id,
      keyed: true,
      tier,
      perMinute: config?.computeUnitsPerMinute ?? tiers[tier].perMinute,
      perDay: tiers[tier].perDay,
      orgIds: deps.apiKeys ? (config?.orgIds ?? [ownOrg]) : undefined,
      defaultOrgId: config?.orgIds?.[0] ?? ownOrg,
    };
    accounts.set(id, account);
    return account;
  }

  function current(account: Account): Usage {
    const now = deps.clock.now();
    const minute = Math.floor(now / MINUTE_MS);
    const day = Math.floor(now / DAY_MS);
    let u = usage.get(account.id);
    if (!u) {
      u = { minute, usedMinute: 0, day, usedDay: 0 };
      usage.set(account.id, u);
    }
    if (u.minute !== minute) {
      u.minute = minute;
      u.usedMinute = 0;
    }
    if (u.day !== day) {
      u.day = day;
      u.usedDay = 0;
    }
    return u;
  }

  return {
    identify(apiKey) {
      if (apiKey === undefined || apiKey === '') {
        return { kind: deps.requireApiKey ? 'missing' : 'ok', account: anonymous };
      }
      if (!deps.apiKeys) return { kind: 'ok', account: accountFor(apiKey, undefined) };
      const config = Object.hasOwn(deps.apiKeys, apiKey) ? deps.apiKeys[apiKey] : undefined;
      if (!config) return { kind: 'unknown', account: anonymous };
      return { kind: 'ok', account: accountFor(apiKey, config) };
    },
    charge(account, computeUnits) {
      const u = current(account);
      const now = deps.clock.now();
      if (u.usedMinute + computeUnits > account.perMinute) {
        return { ok: false, resetSeconds: Math.max(1, Math.ceil(((u.minute + 1) * MINUTE_MS - now) / 1000)) };
      }
      if (u.usedDay + computeUnits > account.perDay) {
        return { ok: false, resetSeconds: Math.max(1, Math.ceil(((u.day + 1) * DAY_MS - now) / 1000)) };
      }
      u.usedMinute += computeUnits;
      u.usedDay += computeUnits;
      return { ok: true };
    },
    headers(account) {
      const u = current(account);
      return {
        'ratelimit-policy': `${account.perMinute};w=60`,
        'ratelimit-limit': String(account.perMinute),
        'ratelimit-remaining': String(Math.max(0, account.perMinute - u.usedMinute)),
      };
    },
    size: () => usage.size,
  };
}
