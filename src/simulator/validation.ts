/**
 * Query validation in the style of the real API: every failed rule adds one message, and the request
 * fails with 400 and the list (`message` as an array). Messages follow class-validator's wording.
 */
import { type Network, networks } from '../upstream/endpoints.js';
import { badRequest } from './http.js';

export type Query = Readonly<Record<string, string>>;

export interface Checker {
  /** An optional enum value; adds a message when present and not one of `values`. */
  oneOf<T extends string>(name: string, raw: string | undefined, values: readonly T[]): T | undefined;
  /** An optional integer in [min, max]. */
  integer(name: string, raw: string | undefined, min: number, max?: number): number | undefined;
  require(name: string, present: boolean): void;
  add(message: string): void;
  /** Throws the 400 with every message collected so far, if any. */
  done(): void;
}

export function createChecker(): Checker {
  const messages: string[] = [];
  return {
    oneOf(name, raw, values) {
      if (raw === undefined) return undefined;
      const found = values.find((v) => v === raw);
      if (found === undefined)
        messages.push(`${name} must be one of the following values: ${values.join(', ')}`);
      return found;
    },
    integer(name, raw, min, max) {
      if (raw === undefined) return undefined;
      if (!/^-?\d+$/.test(raw.trim())) {
        messages.push(`${name} must be an integer number`);
        return undefined;
      }
      const value = Number(raw);
      if (!Number.isSafeInteger(value)) {
        messages.push(`${name} must be an integer number`);
        return undefined;
      }
      if (value < min) messages.push(`${name} must not be less than ${min}`);
      else if (max !== undefined && value > max) messages.push(`${name} must not be greater than ${max}`);
      else return value;
      return undefined;
    },
    require(name, present) {
      if (!present) messages.push(`${name} should not be empty`);
    },
    add(message) {
      messages.push(message);
    },
    done() {
      if (messages.length > 0) throw badRequest([...messages]);
    },
  };
}

/** Page size of the list endpoints: default 10, 1 to 100 (interface.md, Limits). */
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export function checkPageSize(check: Checker, raw: string | undefined): number {
  return check.integer('pageSize', raw, 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
}

export function checkNetwork(
  check: Checker,
  raw: string | undefined,
  required: boolean,
): Network | undefined {
  if (raw === undefined || raw === '') {
    if (required) check.add(`network must be one of the following values: ${networks.join(', ')}`);
    return undefined;
  }
  return check.oneOf('network', raw, networks);
}

/** Which data set a network names: `fuji` and `testnet` are the same test network. */
export type NetworkGroup = 'mainnet' | 'testnet';

export function networkGroup(network: Network): NetworkGroup {
  return network === 'mainnet' ? 'mainnet' : 'testnet';
}
