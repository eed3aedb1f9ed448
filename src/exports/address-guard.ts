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
 * The ranges of each class (RFC 6890's special-purpose registries). An IPv6 address that embeds an
 * IPv4 one, or routes to it, is classified by that IPv4 address too (IPV4_IN_IPV6 below).
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
  ['reserved', '100::', 64, 'ipv6'], // discard-only (RFC 6666)
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

const v4 = (b: Uint8Array, at: readonly number[]) => at.map((i) => b[i]).join('.');
const last32 = [12, 13, 14, 15] as const;
const starts = (b: Uint8Array, prefix: readonly number[]) => prefix.every((x, i) => b[i] === x);

/**
 * The IPv6 forms that carry an IPv4 address, or route to one, and where it sits (byte offsets in
 * the 16 bytes; RFC 6052 skips byte 8, the "u" octet). A form may give several candidates (a
 * local-use NAT64 prefix's length is the operator's choice; Teredo names a server and a client):
 * the address is refused when any of them would be.
 */
const IPV4_IN_IPV6: { form: string; extract: (b: Uint8Array) => string[] | undefined }[] = [
  // IPv4-mapped (RFC 4291): what a dual-stack socket shows for an IPv4 peer.
  {
    form: '::ffff:0:0/96',
    extract: (b) => (starts(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255]) ? [v4(b, last32)] : undefined),
  },
  // IPv4-translated (RFC 2765, SIIT).
  {
    form: '::ffff:0:0:0/96',
    extract: (b) => (starts(b, [0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0]) ? [v4(b, last32)] : undefined),
  },
  // IPv4-compatible (RFC 4291, deprecated); :: and ::1 are IPv6's own.
  {
    form: '::/96',
    extract: (b) =>
      starts(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) && (b[12] ?? 0) + (b[13] ?? 0) + (b[14] ?? 0) > 0
        ? [v4(b, last32)]
        : undefined,
  },
  // NAT64, well-known prefix (RFC 6052).
  {
    form: '64:ff9b::/96',
    extract: (b) => (starts(b, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]) ? [v4(b, last32)] : undefined),
  },
  // NAT64, local-use prefix (RFC 8215): the IPv4 address where a /48, /56, /64 or /96 prefix puts it.
  {
    form: '64:ff9b:1::/48',
    extract: (b) =>
      starts(b, [0, 0x64, 0xff, 0x9b, 0, 1])
        ? [v4(b, [6, 7, 9, 10]), v4(b, [7, 9, 10, 11]), v4(b, [9, 10, 11, 12]), v4(b, last32)]
        : undefined,
  },
  // 6to4 (RFC 3056): the IPv4 address of the site's relay, bytes 2..5.
  { form: '2002::/16', extract: (b) => (starts(b, [0x20, 0x02]) ? [v4(b, [2, 3, 4, 5])] : undefined) },
  // Teredo (RFC 4380): the server's IPv4 address, and the client's, inverted.
  {
    form: '2001::/32',
    extract: (b) =>
      starts(b, [0x20, 0x01, 0, 0])
        ? [v4(b, [4, 5, 6, 7]), last32.map((i) => 255 - (b[i] ?? 0)).join('.')]
        : undefined,
  },
  // ISATAP (RFC 5214): any prefix, an interface identifier of 0:5efe or 200:5efe then the IPv4 address.
  {
    form: '::0:5efe:0:0/96 (ISATAP)',
    extract: (b) =>
      (b[8] === 0 || b[8] === 2) && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe
        ? [v4(b, last32)]
        : undefined,
  },
];

/** The 16 bytes of an IPv6 address (one isIP accepted). */
function ipv6Bytes(ip: string): Uint8Array {
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    const n = Number.parseInt(group, 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 255;
  });
  return bytes;
}

/** The IPv4 addresses an IPv6 address carries or routes to (none for an ordinary one). */
export function embeddedIpv4(address: string): string[] {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(ip) !== 6) return [];
  const bytes = ipv6Bytes(ip);
  for (const { extract } of IPV4_IN_IPV6) {
    const found = extract(bytes);
    if (!found) continue;
    // A candidate in 0.0.0.0/8 ("this network", no translator's destination) is a position the
    // prefix does not use (a local-use NAT64 prefix of another length): the others are read. Only
    // such candidates: they are what the address says.
    const distinct = [...new Set(found)];
    const used = distinct.filter((a) => !a.startsWith('0.'));
    return used.length > 0 ? used : distinct;
  }
  return [];
}

/** The class of an IP address, or undefined for an ordinary (public) one. Not an IP: undefined. */
export function classifyAddress(address: string): AddressClass | undefined {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const own = ORDER.find((kind) => classLists().get(kind)?.check(ip, type));
  const carried = embeddedIpv4(ip).map((v4address) => classifyAddress(v4address));
  return ORDER.find((kind) => kind === own || carried.includes(kind));
}

export class DownloadRefusedError extends Error {
  override readonly name = 'DownloadRefusedError';
  readonly code = 'ERR_DOWNLOAD_REFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    // An IPv6 address that carries an IPv4 one is also shown as the IPv4 address it stands for.
    const v4 = embeddedIpv4(address).join(', ') || undefined;
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
