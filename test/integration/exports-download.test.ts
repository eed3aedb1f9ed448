import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DownloadError, downloadToFile, removePartFiles } from '../../src/exports/download.js';
import { tempDir } from '../support/tmp.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const body = 'txHash,value\n0xaa,123456789012345678901234567890\n';

/** A static download host answering from a script of statuses; records every request's headers. */
async function startHost(
  script: (
    n: number,
    url: string,
  ) => { status: number; headers?: Record<string, string>; body?: string; cut?: boolean },
) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const answer = script(seen.length, req.url ?? '');
    res.writeHead(answer.status, answer.headers);
    if (answer.cut) {
      res.write(body.slice(0, 10));
      setTimeout(() => res.destroy(), 10);
      return;
    }
    res.end(answer.body ?? (answer.status === 200 ? body : 'no'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}`, seen };
}

function target() {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return join(dir.dir, 'sub', 'file.csv');
}

const fast = { retry: { baseDelayMs: 5, maxDelayMs: 20 } };

describe('downloadToFile', () => {
  it('retries 5xx and a body cut short, then writes the file with its size and sha256', async () => {
    const host = await startHost((n) =>
      n === 1 ? { status: 503 } : n === 2 ? { status: 200, cut: true } : { status: 200 },
    );
    const path = target();
    const file = await downloadToFile(`${host.url}/f.csv?token=t`, path, fast);
    expect(host.seen).toHaveLength(3);
    expect(readFileSync(path, 'utf8')).toBe(body);
    expect(file).toEqual({
      path,
      sizeBytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    expect(readdirSync(join(path, '..'))).toEqual(['file.csv']);
  });

  it('does not retry a 4xx, and says where without the query', async () => {
    const host = await startHost(() => ({ status: 403 }));
    const error = await downloadToFile(`${host.url}/f.csv?token=secret-token`, target(), fast).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(DownloadError);
    expect(error.status).toBe(403);
    expect(error.message).toBe(`download from ${host.url}/f.csv: 403`);
    expect(host.seen).toHaveLength(1);
  });

  it('gives up after maxAttempts', async () => {
    const host = await startHost(() => ({ status: 500 }));
    const error = await downloadToFile(`${host.url}/f.csv`, target(), { ...fast, maxAttempts: 3 }).catch(
      (e) => e,
    );
    expect(error.message).toBe(`download from ${host.url}/f.csv: 500 (after 3 attempt(s))`);
    expect(host.seen).toHaveLength(3);
  });

  it('follows a redirect and never sends a credential header', async () => {
    const host = await startHost((_n, url) =>
      url.startsWith('/old') ? { status: 302, headers: { location: '/new.csv' } } : { status: 200 },
    );
    const path = target();
    await downloadToFile(`${host.url}/old.csv`, path, fast);
    expect(host.seen.map((s) => s.url)).toEqual(['/old.csv', '/new.csv']);
    for (const { headers } of host.seen) {
      expect(Object.keys(headers).filter((h) => /key|auth|cookie/i.test(h))).toEqual([]);
    }
  });

  it('refuses URLs that are not http(s)', async () => {
    await expect(downloadToFile('file:///etc/passwd', target())).rejects.toThrow(/only http\(s\)/);
    await expect(downloadToFile('not a url', target())).rejects.toThrow(/not a URL/);
  });

  it('removes stale .part files of the same path only', async () => {
    const path = target();
    const host = await startHost(() => ({ status: 200 }));
    await downloadToFile(`${host.url}/f.csv`, path, fast);
    writeFileSync(`${path}.aaaaaaaaaaaa.part`, 'x');
    writeFileSync(`${path}.bbbbbbbbbbbb.part`, 'x');
    writeFileSync(join(path, '..', 'other.csv.cccccccccccc.part'), 'x');
    expect((await removePartFiles(path)).sort()).toEqual([
      'file.csv.aaaaaaaaaaaa.part',
      'file.csv.bbbbbbbbbbbb.part',
    ]);
    expect(readdirSync(join(path, '..')).sort()).toEqual(['file.csv', 'other.csv.cccccccccccc.part']);
  });
});
