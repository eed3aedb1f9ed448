import { readdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiAddressClasses,
  classifyAddress,
  createDownloadGuard,
  DownloadRefusedError,
  guardedConnector,
} from '../../src/exports/address-guard.js';
import { DownloadError, downloadToFile, FileTooLargeError } from '../../src/exports/download.js';
import { startDownloadHost } from '../support/hostile-api.js';
import { type ConnectFence, fenceConnects } from '../support/no-remote.js';
import { tempDir } from '../support/tmp.js';

const cleanups: (() => void | Promise<void>)[] = [];
let fence: ConnectFence;
beforeEach(() => {
  fence = fenceConnects();
});
afterEach(async () => {
  fence.restore();
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A download host on loopback, closed after the test. */
async function startHost(answer: (res: ServerResponse) => void) {
  const host = await startDownloadHost(answer);
  cleanups.push(host.close);
  return host;
}

function target() {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return join(dir.dir, 'file.csv');
}

const filesBeside = (path: string) => readdirSync(join(path, '..'));
/** The API is on a public address (a documentation one, never contacted): nothing special is allowed. */
const publicApi = createDownloadGuard({ apiClasses: new Set() });
const loopbackApi = createDownloadGuard({ apiClasses: new Set(['loopback']) });
const csv = (res: ServerResponse) => res.end('txHash\n0xaa\n');

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.1', 'private'],
    ['192.168.0.1', 'private'],
    ['fd00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['255.255.255.255', 'reserved'],
    // IPv6 forms that carry an IPv4 address or route to one: classified by that address.
    ['64:ff9b:1::a9fe:a9fe', 'link-local'], // local-use NAT64 (RFC 8215), a /96 prefix
    ['64:ff9b:1::a00:1', 'private'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'link-local'], // the same, a /48 prefix (byte 8 skipped)
    ['64:ff9b:1:7f:0:1::', 'loopback'], // a /56 prefix
    ['64:ff9b:1:0:7f:0:1:0', 'loopback'], // a /64 prefix
    ['64:ff9b:1::808:808', undefined], // 8.8.8.8 through the local translator
    ['64:ff9b:1:a9fe:a9:fe00:808:808', 'link-local'], // 8.8.8.8 for a /96 prefix, the metadata address for a /48
    ['64:ff9b:1::1', 'unspecified'], // nothing but 0.0.0.0/8 in any position
    ['64:ff9b::7f00:1', 'loopback'], // well-known NAT64 (RFC 6052), hex form
    ['::7f00:1', 'loopback'], // IPv4-compatible (RFC 4291, deprecated)
    ['::169.254.169.254', 'link-local'],
    ['::808:808', undefined],
    ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated (RFC 2765)
    ['::ffff:0:10.0.0.1', 'private'],
    ['2002:7f00:1::1', 'loopback'], // 6to4 (RFC 3056)
    ['2002:a9fe:a9fe::', 'link-local'],
    ['2002:808:808::1', undefined],
    ['2001:0:808:808::80ff:fffe', 'loopback'], // Teredo (RFC 4380): client 127.0.0.1, inverted
    ['2001:0:a00:1::f7f7:f7f7', 'private'], // Teredo: server 10.0.0.1, client 8.8.8.8
    ['2001:0:808:808::f7f7:f7f7', undefined],
    ['100::1', 'reserved'], // discard-only (RFC 6666)
    ['100::ffff:1:2:3', 'reserved'],
    ['100:0:0:1::1', undefined],
    ['2606:4700::5efe:7f00:1', 'loopback'], // ISATAP (RFC 5214) interface identifier
    ['2606:4700::200:5efe:a00:1', 'private'],
    ['8.8.8.8', undefined],
    ['100.128.0.1', undefined],
    ['172.32.0.1', undefined],
    ['2606:4700::1111', undefined],
    ['not-an-ip', undefined],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('classifies the API base URL by its address, a name through the resolver', async () => {
    expect([...(await apiAddressClasses('http://127.0.0.1:4010'))]).toEqual(['loopback']);
    expect([...(await apiAddressClasses('http://localhost:4010'))]).toContain('loopback');
    expect([...(await apiAddressClasses('https://192.0.2.10/'))]).toEqual([]);
  });
});

describe('download address guard', () => {
  it('refuses a name that resolves to loopback when the API is public, before any connection', async () => {
    const host = await startHost(csv);
    const path = target();
    const error = await downloadToFile(`http://localhost:${host.port}/f.csv`, path, {
      guard: publicApi,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DownloadRefusedError);
    expect(error.message).toMatch(
      /^refusing to download from localhost \((127\.0\.0\.1|::1)\): a loopback address/,
    );
    expect(host.requests()).toBe(0);
    expect(filesBeside(path)).toEqual([]);
  });

  it.each([
    ['0x7f000001', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1 (127.0.0.1)'],
    ['2130706433', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
  ])('refuses the literal form %s (%s) at once', async (literal, shown) => {
    const host = await startHost(csv);
    const error = await downloadToFile(`http://${literal}:${host.port}/f.csv`, target(), {
      guard: publicApi,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DownloadRefusedError);
    expect(error.message).toContain(`refusing to download from ${shown}: a loopback address`);
    expect(host.requests()).toBe(0);
  });

  it('allows a host listed in allowedDownloadHosts whatever it resolves to', async () => {
    const host = await startHost(csv);
    const guard = createDownloadGuard({ apiClasses: new Set(), allowedHosts: ['LOCALHOST', '127.0.0.1'] });
    const file = await downloadToFile(`http://127.0.0.1:${host.port}/f.csv`, target(), { guard });
    expect(file.sizeBytes).toBe(12);
  });

  it('allows the class of the API itself, and refuses a redirect hop to the metadata address', async () => {
    const ok = await startHost(csv);
    expect(
      (await downloadToFile(`http://127.0.0.1:${ok.port}/f.csv`, target(), { guard: loopbackApi })).sizeBytes,
    ).toBe(12);

    const redirect = await startHost((res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    });
    const path = target();
    const error = await downloadToFile(`http://127.0.0.1:${redirect.port}/f.csv`, path, {
      guard: loopbackApi,
      maxAttempts: 3,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DownloadRefusedError);
    expect(error.message).toMatch(/^refusing to download from 169\.254\.169\.254: a link-local address/);
    expect(redirect.requests()).toBe(1);
    expect(filesBeside(path)).toEqual([]);
    expect(fence.attempts).toEqual([]);
  });

  it.each([
    ['http://10.0.0.7/f.csv', '10.0.0.7: a private address'],
    ['http://100.64.1.1/f.csv', '100.64.1.1: a carrier-grade NAT'],
    ['http://[fe80::1]/f.csv', 'fe80::1: a link-local address'],
    ['http://[::ffff:169.254.169.254]/f.csv', '::ffff:a9fe:a9fe (169.254.169.254): a link-local address'],
    ['http://0xa9fea9fe/latest', '169.254.169.254: a link-local address'],
    ['http://0.0.0.0:1/f.csv', '0.0.0.0: an unspecified address'],
    ['http://224.0.0.1/f.csv', '224.0.0.1: a multicast address'],
    // Before, the collector called connect() for this one.
    ['http://[64:ff9b:1::a9fe:a9fe]/f.csv', '64:ff9b:1::a9fe:a9fe (169.254.169.254): a link-local address'],
    ['http://[2002:a9fe:a9fe::1]/f.csv', '2002:a9fe:a9fe::1 (169.254.169.254): a link-local address'],
    [
      'http://[2001:0:a00:1::f7f7:f7f7]/f.csv',
      '2001:0:a00:1::f7f7:f7f7 (10.0.0.1, 8.8.8.8): a private address',
    ],
  ])('refuses %s without a connection', async (url, message) => {
    const error = await downloadToFile(url, target(), { guard: loopbackApi }).catch((e) => e);
    expect(error).toBeInstanceOf(DownloadRefusedError);
    expect(error.message).toContain(`refusing to download from ${message}`);
    expect(fence.attempts).toEqual([]);
  });
});

describe('DNS rebinding', () => {
  it('checks the answer the socket connects to, on every new connection of a name', async () => {
    const host = await startHost(csv);
    // The name's answers change between lookups, as a rebinding attacker's DNS would make them.
    const answers = ['127.0.0.1', '10.0.0.5'];
    const lookup = ((_name: string, _options: unknown, callback: (...args: unknown[]) => void) => {
      const address = answers.shift() ?? '10.0.0.5';
      callback(null, [{ address, family: 4 }]);
    }) as unknown as typeof import('node:dns').lookup;
    const get = async () => {
      const agent = new Agent({ connect: guardedConnector(loopbackApi, lookup) });
      try {
        const res = await request(`http://rebind.invalid:${host.port}/f.csv`, { dispatcher: agent });
        return await res.body.text();
      } finally {
        await agent.close();
      }
    };
    expect(await get()).toBe('txHash\n0xaa\n');
    const error = await get().catch((e) => e);
    expect(error).toBeInstanceOf(DownloadRefusedError);
    expect(error.message).toContain('refusing to download from rebind.invalid (10.0.0.5): a private address');
    expect(host.requests()).toBe(1);
    expect(fence.attempts).toEqual([]);
  });
});

describe('the test fence', () => {
  it('stops an unguarded connect outside loopback and records it (what the guard tests rely on)', async () => {
    const error = await downloadToFile('http://169.254.169.254/latest', target(), { maxAttempts: 1 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(DownloadError);
    expect(fence.attempts).toEqual(['169.254.169.254']);
    fence.attempts.length = 0;
  });
});

describe('download size cap and error excerpts', () => {
  it('stops a body past maxFileSize, declared or not, and removes the partial file', async () => {
    const big = 'x'.repeat(64 * 1024);
    const declared = await startHost((res) => {
      res.writeHead(200, { 'content-length': String(big.length) });
      res.end(big);
    });
    const chunked = await startHost((res) => {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) res.write(big);
      res.end();
    });
    for (const host of [declared, chunked]) {
      const path = target();
      const error = await downloadToFile(`http://127.0.0.1:${host.port}/f.csv`, path, {
        maxFileSize: 10_000,
        maxAttempts: 3,
      }).catch((e) => e);
      expect(error).toBeInstanceOf(FileTooLargeError);
      expect(error.message).toContain('larger than jobs.exports.maxFileSize (10000 bytes');
      expect(host.requests()).toBe(1);
      expect(filesBeside(path)).toEqual([]);
    }
  });

  it('quotes at most a short excerpt of what a non-HTTP peer sent, without its control characters', async () => {
    const server = createTcpServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(`\u001b]0;pwned\u0007\u001b[2J${'A'.repeat(100_000)}\r\n\r\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as import('node:net').AddressInfo;
    const error = await downloadToFile(`http://127.0.0.1:${port}/f.csv`, target(), {
      maxAttempts: 1,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DownloadError);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(error.message.length).toBeLessThan(600);
  });
});
