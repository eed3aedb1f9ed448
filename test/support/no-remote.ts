/**
 * Proof that a refusal came before any connection, and a fence that keeps test traffic on this
 * machine: every TCP connect of this process (net and tls, undici's included) is checked before it
 * starts. A connect to an address outside loopback (127.0.0.0/8, ::1) is recorded and fails at once
 * instead of leaving the machine; a name is checked on what it resolves to, before the socket uses it.
 * Tests assert `attempts` is empty.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, Socket } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export function isLoopback(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  return family !== 0 && loopback.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

type Lookup = (
  host: string,
  options: object,
  callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export interface ConnectFence {
  /** Every non-loopback address a connect was attempted to (and stopped). */
  attempts: string[];
  restore(): void;
}

export function fenceConnects(): ConnectFence {
  const attempts: string[] = [];
  const original = Socket.prototype.connect;
  const blocked = (address: string) => {
    attempts.push(address);
    return Object.assign(new Error(`test fence: a connect to ${address} (not loopback) was attempted`), {
      code: 'ETESTFENCE',
    });
  };
  Socket.prototype.connect = function connect(this: Socket, ...args: unknown[]) {
    // net.connect passes its normalized arguments as one array; a direct call passes them as is.
    const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as
      | Record<string, unknown>
      | number
      | string;
    const options =
      typeof first === 'object' && first !== null
        ? first
        : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
    if (!options['path']) {
      const host = String(options['host'] ?? 'localhost');
      if (isIP(host.replace(/^\[|\]$/g, ''))) {
        if (!isLoopback(host)) throw blocked(host);
      } else if (typeof first === 'object' && first !== null) {
        const inner = (options['lookup'] ?? dnsLookup) as Lookup;
        first['lookup'] = ((name, opts, callback) =>
          inner(name, opts, (err, address, family) => {
            if (err) return callback(err, address, family);
            const found = Array.isArray(address) ? address.map((a) => a.address) : [address];
            const outside = found.find((a) => !isLoopback(a));
            if (outside) return callback(blocked(outside), address, family);
            callback(null, address, family);
          })) as Lookup;
      } else {
        throw blocked(host);
      }
    }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  return {
    attempts,
    restore() {
      Socket.prototype.connect = original;
    },
  };
}
