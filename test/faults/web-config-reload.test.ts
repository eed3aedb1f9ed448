/**
 * The metrics web config reloaded under `start` (issue 34, D15): before, a SIGHUP after
 * `basic_auth_users` was removed left `/metrics` open without credentials, logged at info
 * (`users: 0`). Now turning authentication off is refused like turning TLS off (the config in force
 * stays, an error line says why); a TLS config without users is warned of at start.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceHarness, serviceHarness, waitFor } from '../support/service.js';
import { basicAuth, makeCertificate, webConfigYaml, writeWebConfig } from '../support/web-config.js';
import { linesMatching } from './backend-support.js';

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const file = { jobs: { supply: { schedule: '0 0 1 1 *' } } };

describe('the metrics web config reloaded', () => {
  it('a reload that would turn authentication off is refused: /metrics still asks for credentials', async () => {
    h = await serviceHarness();
    const cert = makeCertificate(h.dir);
    const path = writeWebConfig(h.dir, webConfigYaml({ cert, users: { prometheus: 'first' } }));
    const { proc, port } = await h.spawnStart(file, { METRICS_WEB_CONFIG: path, LOG_FORMAT: 'json' });
    await proc.waitForOutput(/glacier-collector started/, 60_000);
    const agent = new Agent({ connect: { ca: readFileSync(cert.certFile) } });
    const metrics = async (auth?: string) => {
      const res = await request(`https://127.0.0.1:${port}/metrics`, {
        dispatcher: agent,
        ...(auth && { headers: { authorization: auth } }),
      });
      await res.body.text();
      return res.statusCode;
    };
    expect(await metrics()).toBe(401);
    expect(await metrics(basicAuth('prometheus:first'))).toBe(200);

    // TLS alone is a valid file (encrypted, open): applied, it would drop authentication.
    writeFileSync(path, webConfigYaml({ cert }));
    proc.child.kill('SIGHUP');
    await waitFor(() => linesMatching(proc.output(), /reload failed/).length > 0, 30_000, 'the refusal');
    expect(String(linesMatching(proc.output(), /reload failed/)[0]?.err)).toMatch(
      /authentication turned off/,
    );
    expect(await metrics()).toBe(401);
    expect(await metrics(basicAuth('prometheus:first'))).toBe(200);
    expect(linesMatching(proc.output(), /web config reloaded/)).toEqual([]);
    await agent.close();
  }, 120_000);

  it('a TLS config without users is warned of at start', async () => {
    h = await serviceHarness();
    const cert = makeCertificate(h.dir);
    const path = writeWebConfig(h.dir, webConfigYaml({ cert }));
    const { proc } = await h.spawnStart(file, { METRICS_WEB_CONFIG: path, LOG_FORMAT: 'json' });
    await proc.waitForOutput(/glacier-collector started/, 60_000);
    expect(linesMatching(proc.output(), /TLS without basic_auth_users/)).toHaveLength(1);
  }, 120_000);
});
