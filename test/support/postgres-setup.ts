import { alive } from '../../src/commands/parent-watch.js';
import { withPostgres } from './store.js';

/**
 * The `postgres` project's global setup: fails at once, with what to do, when PostgreSQL does not
 * answer; and drops the schemas that test processes no longer running left behind (a killed run).
 */
export default async function setup(): Promise<void> {
  try {
    await withPostgres(async (client) => {
      const { rows } = await client.query<{ name: string }>(
        String.raw`SELECT nspname AS name FROM pg_namespace WHERE nspname ~ '^t_\d+_[0-9a-f]+$'`,
      );
      for (const { name } of rows) {
        const pid = Number(name.split('_')[1]);
        if (!alive(pid)) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      }
    });
  } catch (cause) {
    throw new Error(
      'the postgres tests need PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth) with a database "test": ' +
        '.ci/run starts it (or: pg_ctlcluster $(ls /etc/postgresql) main start; createdb -h 127.0.0.1 -U postgres test)',
      { cause },
    );
  }
}
