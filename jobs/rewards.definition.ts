/** The rewards job's definition; its handler is jobs/rewards.ts, imported when a run starts. */
import { defineJob, withoutSchedule } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';
import { CYCLES_MAX_PAGES, rewardQueries, rewardStreams } from '../src/sync/reward-streams.js';
import { canonicalNetwork } from '../src/upstream/endpoints.js';

export const rewardsJob = defineJob({
  name: JOB_NAMES.rewards,
  configKey: 'rewards',
  table: 'rewards',
  handler: async () => (await import('./rewards.js')).rewards,
  restore: async () => (await import('./rewards.js')).restore,
  payload: (section) => withoutSchedule(section),
  streams: (section) =>
    rewardStreams(section).map(({ kind, ids, scope }) => ({
      scope,
      label: `${ids.length} ${kind === 'addresses' ? 'address(es)' : 'node id(s)'} from ${ids[0] ?? ''}, ${section.currency}`,
      firstRun: { rewards: section.maxPages },
      reads: `the whole history again, newest first, ${section.maxPages} page(s) (maxPages) a run until it is complete`,
      history: { kind, ids: ids.length, pageSize: section.pageSize, maxPages: section.maxPages },
    })),
  // A batch never read (a first start, a subject added) is read at start, not at the next hourly slot.
  firstRunAtStart: async (section, store) => {
    // Imported here: a definition is read by `config check` and `plan`, which load no store code.
    const { readCursor } = await import('../src/store/index.js');
    for (const { scope } of rewardStreams(section)) {
      if ((await readCursor(store, JOB_NAMES.rewards, scope)) === undefined) return true;
    }
    return false;
  },
  cost: (section) => {
    const batches = rewardQueries(section).length;
    // The cycles read: one request per node with auto-renewed staking (which ones, the store says; the
    // configured node ids are the bound). None on Mainnet while Helicon is unscheduled there (every
    // stake is fixed, the list empty): counted on the test network only, where ACP-236 is live.
    const nodes = canonicalNetwork(section.network) === 'mainnet' ? 0 : section.nodeIds.length;
    return {
      steady: { rewards: batches, ...(nodes > 0 && { validatorCycles: nodes }) },
      worst: {
        rewards: batches * section.maxPages,
        ...(nodes > 0 && { validatorCycles: nodes * CYCLES_MAX_PAGES }),
      },
      idle: { rewards: batches },
      note: `${batches} batch(es) for ${section.addresses.length} address(es) and ${section.nodeIds.length} node id(s); ${nodes > 0 ? `the cycles of those with auto-renewed staking, one request each (at most ${nodes})` : 'no cycles counted (auto-renewed staking is not live on Mainnet)'}`,
    };
  },
});
