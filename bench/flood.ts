/**
 * A wrong-password flood on a metrics server, as a process of its own (its CPU is not the
 * measuring process's, whose probe timings must not wait behind the flood's callbacks). Started by
 * bench/figures/metrics-auth.ts: `tsx bench/flood.ts <json>` with `{ url, caFile, clients, ms,
 * passwords: 'random' | 'fixed' }`; each client sends its next request as soon as the last one is
 * answered, for `ms`, only to `url` (a loopback address). Prints `{ statuses, errors, requests }`
 * as one JSON line when done.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const spec = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  caFile?: string;
  clients: number;
  ms: number;
  passwords: 'random' | 'fixed';
};
if (!/^https?:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:\d+)?$/.test(spec.url)) {
  throw new Error(`flood: ${spec.url} is not a loopback origin`);
}
const pool = new Pool(spec.url, {
  connections: spec.clients,
  ...(spec.caFile && { connect: { ca: readFileSync(spec.caFile) } }),
});
const statuses: Record<number, number> = {};
const errors: Record<string, number> = {};
const ends = Date.now() + spec.ms;
const header = (password: string) => `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}`;
const fixed = header('wrong-password');

async function client(): Promise<void> {
  while (Date.now() < ends) {
    try {
      const res = await pool.request({
        method: 'GET',
        path: '/metrics',
        headers: {
          authorization: spec.passwords === 'fixed' ? fixed : header(randomBytes(8).toString('hex')),
        },
      });
      await res.body.text();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'error';
      errors[code] = (errors[code] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

await Promise.all(Array.from({ length: spec.clients }, client));
await pool.close();
const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
process.stdout.write(`${JSON.stringify({ statuses, errors, requests })}\n`);
