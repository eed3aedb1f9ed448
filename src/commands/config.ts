/** `config check` and `migrate`: the configuration and the database schema. */
import { type Config, describeConfig, printableDatabaseLocation } from '../config/index.js';
import { openConfiguredStore } from '../service/app.js';

export function checkConfig(config: Config): void {
  console.log(JSON.stringify(describeConfig(config), null, 2));
}

export async function migrate(config: Config): Promise<void> {
  const store = await openConfiguredStore(config);
  await store.close();
  console.log(`database ${printableDatabaseLocation(config)} is up to date`);
}
