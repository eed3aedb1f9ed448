import { handlerFor, jobNames, payloadFor } from '../jobs/index.js';
import { createApp } from './app.js';
import { loadConfig } from './config/index.js';
import { demoFileConfig } from './demo-config.js';
import { runJob } from './runner.js';
import { startSimulator } from './simulator/index.js';

const queries: { title: string; sql: string }[] = [
  {
    title: 'Latest supply snapshot',
    sql: 'SELECT last_updated, total_supply, circulating_supply, total_staked FROM supply_snapshots ORDER BY last_updated DESC LIMIT 1',
  },
  {
    title: 'Transactions per chain',
    sql: 'SELECT network, chain_id, COUNT(*) AS txs, MAX(block_timestamp) AS newest FROM transactions GROUP BY 1, 2 ORDER BY txs DESC',
  },
  {
    title: 'Rewards per address, in AVAX and USD (amounts are exact text; cast only to display)',
    sql: `SELECT a.address, COUNT(*) AS rewards,
            ROUND(SUM(CAST(r.amount AS REAL)) / 1e9, 4) AS avax,
            ROUND(SUM(CAST(r.amount AS REAL) / 1e9 * CAST(p.value AS REAL)), 2) AS usd
          FROM rewards r JOIN reward_addresses a USING (network, utxo_id)
          LEFT JOIN reward_prices p ON p.network = r.network AND p.utxo_id = r.utxo_id AND p.currency = 'usd'
          GROUP BY a.address ORDER BY rewards DESC LIMIT 10`,
  },
  {
    title: 'Job runs',
    sql: 'SELECT job, status, rows_written, requests, compute_units FROM job_runs ORDER BY id',
  },
];

/** `npm run demo`: the whole collector against the local simulator, no key and no network needed. */
export async function runDemo(options: { databasePath: string }): Promise<void> {
  const sim = await startSimulator({ port: 0, seed: 1, exports: { runningMs: 2_000 } });
  const config = loadConfig({
    env: { GLACIER_BASE_URL: sim.url, DATABASE_PATH: options.databasePath, LOG_LEVEL: 'info' },
    file: demoFileConfig(),
  });
  const app = createApp(config);
  try {
    app.log.info({ simulator: sim.url, database: config.databasePath }, 'demo: running every job twice');
    for (const round of [1, 2]) {
      for (const name of jobNames) {
        const payload = payloadFor(name, config);
        if (!payload) continue;
        const summary = await runJob(
          name,
          handlerFor(name),
          name === 'exports' ? { ...payload, wait: true } : payload,
          app,
          {
            scope: `demo round ${round}`,
          },
        );
        if (summary.status === 'failed') process.exitCode = 1;
      }
    }
    for (const q of queries) {
      console.log(`\n${q.title}\n  ${q.sql.replace(/\s+/g, ' ')}`);
      console.table(app.store.sqlite.prepare(q.sql).all());
    }
    console.log(
      `\nThe database is ${config.databasePath}: open it with any SQLite client (sqlite3 ${options.databasePath}).`,
    );
  } finally {
    app.close();
    await sim.close();
  }
}
