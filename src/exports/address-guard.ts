/**
 * Where a download may connect. An export's `downloadUrl` (and every redirect after it) is upstream
 * text: without a check, a hostile or compromised API could point the collector at the cloud
 * metadata service, at a database on the host's private network or at a port of the host itself.
 *
 * The check is made on the address actually connected to, at connect time (undici's connector with
 * a checking `lookup`): a name that resolves to a public address when first looked at and to a
 * private one a moment later (DNS rebinding) cannot slip past, and every redirect hop to a new
 * origin opens a connection of its own, so it is checked too.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { buildConnector } from 'undici';

/** The address classes a download may not reach unless the API itself is there (or the host is listed). */
export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'CGNAT'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

/** What each class reads as in an error: "refusing to download from 10.0.0.1: a private address". */
const CLASS_TEXT: Record<AddressClass, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  CGNAT: 'a carrier-grade NAT (100.64.0.0/10) address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved address',
};

/**
 * The ranges of each class (RFC 6890's special-purpose registries). BlockList matches an IPv4 rule
 * against the IPv4-mapped IPv6 form too (`::ffff:127.0.0.1`); NAT64's well-known prefix is mapped
 * by hand in `classifyAddress`.
 */
const RANGES: [AddressClass, string, number, 'ipv4' | 'ipv6'][] = [
  ['unspecified', '0.0.0.0', 32, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['reserved', '0.0.0.0', 8, 'ipv4'], // "this network"
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', 'fc00::', 7, 'ipv6'], // unique local
  ['private', 'fec0::', 10, 'ipv6'], // site-local (deprecated, still routed by some)
  ['link-local', '169.254.0.0', 16, 'ipv4'], // cloud metadata: 169.254.169.254
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['CGNAT', '100.64.0.0', 10, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['reserved', '240.0.0.0', 4, 'ipv4'], // and 255.255.255.255, broadcast
  ['reserved', '192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['reserved', '198.18.0.0', 15, 'ipv4'], // benchmarking
];

/** The ranges as one BlockList per class, built on first use (nothing happens at import time). */
let lists: Map<AddressClass, BlockList> | undefined;
function classLists(): Map<AddressClass, BlockList> {
  if (lists) return lists;
  const built = new Map<AddressClass, BlockList>();
  for (const [kind, network, prefix, family] of RANGES) {
    const list = built.get(kind) ?? new BlockList();
    built.set(kind, list);
    list.addSubnet(network, prefix, family);
  }
  lists = built;
  return built;
}
/** Unspecified before reserved (0.0.0.0 is both), the rest disjoint. */
const ORDER: AddressClass[] = [
  'unspecified',
  'loopback',
  'private',
  'link-local',
  'CGNAT',
  'multicast',
  'reserved',
];

const NAT64 = /^64:ff9b::(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i;

/** The class of an IP address, or undefined for an ordinary (public) one. Not an IP: undefined. */
export function classifyAddress(address: string): AddressClass | undefined {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const nat64 = type === 'ipv6' ? NAT64.exec(ip) : null;
  if (nat64) return classifyAddress(nat64[1] ?? embeddedIpv4(nat64[2] as string, nat64[3] as string));
  return ORDER.find((kind) => classLists().get(kind)?.check(ip, type));
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:a9fe:a9fe` → 169.254.169.254), if it is one. */
function mappedIpv4(address: string): string | undefined {
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return undefined;
  return m[1] ?? embeddedIpv4(m[2] as string, m[3] as string);
}

function embeddedIpv4(high: string, low: string): string {
  const h = Number.parseInt(high, 16);
  const l = Number.parseInt(low, 16);
  return `${h >> 8}.${h & 255}.${l >> 8}.${l & 255}`;
}

export class DownloadRefusedError extends Error {
  override readonly name = 'DownloadRefusedError';
  readonly code = 'ERR_DOWNLOAD_REFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    // An IPv4-mapped address is also shown as the IPv4 address it stands for.
    const v4 = mappedIpv4(address);
    const inner = host === address ? v4 : v4 ? `${address} = ${v4}` : address;
    const shown = inner ? `${host} (${inner})` : host;
    super(
      `refusing to download from ${shown}: ${CLASS_TEXT[addressClass]} (allowed only when the API's own address is one, or the host is listed in jobs.exports.allowedDownloadHosts)`,
    );
  }
}

export interface DownloadGuard {
  /** Throws DownloadRefusedError when `address` (a resolved IP) may not be reached for `host`. */
  check(host: string, address: string): void;
}

type LookupFn = typeof dnsLookup;

export interface DownloadGuardOptions {
  /** The classes the API base URL resolves into: downloads may go there too (the simulator, compose offline). */
  apiClasses: ReadonlySet<AddressClass>;
  /** Host names (or IP literals) the operator allows whatever they resolve to: `jobs.exports.allowedDownloadHosts`. */
  allowedHosts?: readonly string[];
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

export function createDownloadGuard(options: DownloadGuardOptions): DownloadGuard {
  const allowed = new Set((options.allowedHosts ?? []).map(bare));
  return {
    check(host, address) {
      if (allowed.has(bare(host))) return;
      const kind = classifyAddress(address);
      if (kind && !options.apiClasses.has(kind)) throw new DownloadRefusedError(bare(host), address, kind);
    },
  };
}

/**
 * The classes the API base URL's host resolves into (every address of it). An IP literal needs no
 * lookup; a name is resolved by the system resolver, as the client's own connections are.
 */
export async function apiAddressClasses(
  baseUrl: string,
  lookup: LookupFn = dnsLookup,
): Promise<Set<AddressClass>> {
  const host = bare(new URL(baseUrl).hostname);
  const addresses = isIP(host)
    ? [host]
    : await new Promise<string[]>((resolve, reject) => {
        const options: LookupAllOptions = { all: true };
        lookup(host, options, (err, found: LookupAddress[]) =>
          err ? reject(err) : resolve(found.map((a) => a.address)),
        );
      });
  const classes = new Set<AddressClass>();
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind) classes.add(kind);
  }
  return classes;
}

/**
 * undici's connector, checking every connection before it is opened: an IP literal host at once, a
 * name through the lookup whose answer the socket then connects to (no second resolution).
 */
export function guardedConnector(
  guard: DownloadGuard,
  lookup: LookupFn = dnsLookup,
): ReturnType<typeof buildConnector> {
  const checkingLookup = ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: Error | null,
      address?: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'function' ? {} : options) as object;
    const resolve = lookup as unknown as (
      host: string,
      o: object,
      done: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => void;
    resolve(hostname, opts, (err, address, family) => {
      if (err) return cb(err);
      try {
        const found = Array.isArray(address) ? address : [{ address, family }];
        for (const a of found) guard.check(hostname, a.address);
      } catch (refused) {
        return cb(refused as Error);
      }
      cb(null, address, family);
    });
  }) as LookupFn;
  const connect = buildConnector({ lookup: checkingLookup } as buildConnector.BuildOptions);
  return (opts, callback) => {
    const host = bare(opts.hostname);
    if (isIP(host)) {
      try {
        guard.check(host, host);
      } catch (refused) {
        // Asynchronously, as a failed connect would be: undici expects the callback later.
        queueMicrotask(() => callback(refused as Error, null));
        return;
      }
    }
    connect(opts, callback);
  };
}
