/**
 * What docs/operations.md says about protecting /metrics and about signals, checked against the
 * code's own constants: a bound, a TTL or a signal changed in one place fails here until the other
 * says the same.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RELOAD_SIGNAL, STOP_SIGNALS } from '../../src/commands/signals.js';
import { ALLOWED_RESPONSE_HEADERS, BCRYPT_COSTS } from '../../src/config/web-config.js';
import { CACHED_REFUSED, CACHED_VERIFIED, CREDENTIAL_TTL_MS } from '../../src/metrics/basic-auth.js';
import { DEFAULT_LANE_BOUND } from '../../src/metrics/bcrypt-checker.js';
import { RECHECK_MS } from '../../src/metrics/web-access.js';
import { sections, tableRows } from '../support/markdown.js';

const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const protecting = sections(operations).get('Protecting /metrics') ?? '';
const shutdown = sections(operations).get('Shutdown') ?? '';

describe('docs/operations.md on /metrics and signals', () => {
  it('states the bounds and the cache as the code has them', () => {
    expect(protecting).toContain(`bcrypt cost outside **${BCRYPT_COSTS.min}..${BCRYPT_COSTS.max}**`);
    expect(protecting).toContain(`at most **${DEFAULT_LANE_BOUND}** checks of new credentials`);
    expect(protecting).toContain(`bounded at ${DEFAULT_LANE_BOUND} too`);
    expect(CREDENTIAL_TTL_MS).toBe(5 * 60_000);
    expect(protecting).toContain('remembered for **5 minutes**');
    expect(protecting).toContain(
      `at most ${CACHED_VERIFIED.toLocaleString('en')} verified and ${CACHED_REFUSED.toLocaleString('en')} refused credentials`,
    );
    expect(RECHECK_MS).toBe(1_000);
    expect(protecting).toContain('at most\nonce a second');
  });

  it('lists exporter-toolkit’s response headers, each allowed value', () => {
    for (const [name, values] of Object.entries(ALLOWED_RESPONSE_HEADERS)) {
      expect(protecting).toContain(values ? `\`${name}: ${values.join('|')}\`` : `\`${name}\``);
    }
  });

  it('says what every signal does, as signals.ts handles them', () => {
    const rows = tableRows(shutdown).map((r) => r.cells);
    expect(rows.map((r) => r[0])).toEqual([...STOP_SIGNALS, RELOAD_SIGNAL]);
    for (const row of rows.filter((r) => STOP_SIGNALS.includes(r[0] as NodeJS.Signals))) {
      expect(row[1]).toContain('graceful shutdown');
    }
    expect(rows.find((r) => r[0] === RELOAD_SIGNAL)?.[1]).toContain('re-reads `METRICS_WEB_CONFIG`');
    expect(rows.find((r) => r[0] === RELOAD_SIGNAL)?.[1]).toContain('never stops');
  });
});
