import { afterEach, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { demoAddress, demoNodeId } from '../../src/commands/demo-config.js';
import { loadConfig } from '../../src/config/index.js';
import { createMetrics, DEFAULT_SERIES_CAP } from '../../src/metrics/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { parseExposition, samples } from '../support/exposition.js';
import { captureLog } from '../support/log.js';
import { testStore } from '../support/store.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('metrics cardinality cap', () => {
  it('keeps the first configured addresses under the cap of 500 series and sums the rest into "other", with one log line', async () => {
    const addresses = Array.from({ length: 600 }, (_, i) => demoAddress(`cap-${i}`));
    const config = loadConfig({
      env: {},
      cwd: '/nonexistent',
      file: { jobs: { rewards: { schedule: '0 * * * *', addresses, nodeIds: [demoNodeId('n')] } } },
    });
    const db = await testStore();
    cleanups.push(db.cleanup);
    const at = '2025-06-15T12:00:00.000Z';
    await db.store.transaction(async (tx) => {
      for (const [i, address] of addresses.entries()) {
        await tx.run(
          `INSERT INTO rewards (network, utxo_id, tx_hash, reward_tx_hash, output_index, node_id, reward_type, amount_staked,
            start_timestamp, end_timestamp, asset_id, asset_name, asset_symbol, asset_denomination, asset_type, amount,
            addresses, first_seen_at, last_seen_at)
           VALUES ('mainnet', ?, 't', 'rt', 0, ?, 'VALIDATOR', '1', 0, ?, 'a', 'Avalanche', 'AVAX', 9, 'secp256k1', ?, '[]', ?, ?)`,
          [`u${i}`, demoNodeId('n'), 1000 + i, String((i + 1) * 1_000_000_000), at, at],
        );
        await tx.run("INSERT INTO reward_addresses VALUES ('mainnet', ?, ?)", [`u${i}`, address]);
        await tx.run("INSERT INTO reward_prices VALUES ('mainnet', ?, 'usd', '2', ?)", [`u${i}`, at]);
      }
    });
    const { log, text: logText } = captureLog('info');
    const metrics = createMetrics({ store: db.store, config, jobs, log, clock: createManualClock(0) });
    for (let scrape = 0; scrape < 2; scrape++) {
      const families = parseExposition((await metrics.expose()).body);
      const avax = samples(families, 'glacier_rewards_received_avax');
      expect(avax.length).toBe(DEFAULT_SERIES_CAP);
      const addressSeries = avax.filter((s) => s.labels.kind === 'address');
      // 500 series = 498 addresses in config order + an "other" per kind and reward type (the node
      // id comes last in config order, so its series is folded too).
      expect(addressSeries.slice(0, 498).map((s) => s.labels.subject)).toEqual(addresses.slice(0, 498));
      expect(avax.filter((s) => s.labels.subject === 'other')).toHaveLength(2);
      const other = avax.find((s) => s.labels.kind === 'address' && s.labels.subject === 'other')!;
      const kept = addressSeries.filter((s) => s.labels.subject !== 'other').length;
      // Sum of 1..600 AVAX: nothing lost.
      expect(addressSeries.reduce((n, s) => n + s.value, 0)).toBe((600 * 601) / 2);
      expect(other.value).toBe((600 * 601) / 2 - (kept * (kept + 1)) / 2);
      const count = samples(families, 'glacier_rewards_received', { kind: 'address', subject: 'other' })[0]!;
      expect(count.value).toBe(600 - kept);
      expect(
        samples(families, 'glacier_rewards_received_value', { subject: 'other', kind: 'address' })[0]!.value,
      ).toBe(2 * other.value);
    }
    const lines = logText()
      .split('\n')
      .filter((l) => l.includes('cap of 500 series'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('glacier_rewards_received_avax: more addresses and node ids than the cap');
  });
});
