import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/commands/demo-config.js';
import { runCli } from '../support/cli.js';
import { codeSpans, sections } from '../support/markdown.js';
import { tempDir } from '../support/tmp.js';

/**
 * What README.md and docs/cli.md promise about `plan` and `status`, checked against the commands
 * run as processes: a claim that stops being true fails here.
 */

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const cliPage = sections(readFileSync(new URL('docs/cli.md', root), 'utf8'));
/** The comment after `npx glacier-collector <command>` in the README's shell blocks. */
const readmeClaim = (command: string) =>
  new RegExp(`^npx glacier-collector ${command}\\s+# (.*)$`, 'm').exec(readme)?.[1] ?? '(no README line)';

let dir: string;
let cleanup: () => void;
let configPath: string;

beforeAll(() => {
  ({ dir, cleanup } = tempDir('glacier-claims-'));
  configPath = join(dir, 'glacier.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      jobs: { supply: { schedule: '* * * * * *' }, transactions: { schedule: '* * * * *' } },
      service: { queuePrefix: `claims${process.pid}` },
    }),
  );
});
afterAll(() => cleanup?.());

describe('README and docs/cli.md about plan', () => {
  it('"compute units per day against your budget": by default, the configured budget, named', async () => {
    expect(readmeClaim('plan')).toBe('compute units per day against your budget');
    const section = cliPage.get('`plan`') ?? '';
    expect(section).toContain('compared with the effective budget');
    // The example the page gives of how it names the budget is what it prints.
    expect(codeSpans(section)).toContain('budget (tier Free): …');
    const keyed = await runCli(['plan', '-c', configPath], { GLACIER_API_KEY: 'k' });
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.stdout).toMatch(/^budget \(tier Free\): 2,000,000 CU\/day, 8,000 CU\/minute; /m);
    // The disk it takes, on the store the config points at.
    expect(keyed.stdout).toMatch(/^disk on SQLite, steady–worst /m);
    expect(keyed.stdout).toMatch(/^without retention the database grows .* a day$/m);

    // An explicit budget.computeUnitsPerDay is compared with too, with the warning.
    const small = join(dir, 'small.json');
    writeFileSync(
      small,
      JSON.stringify({ jobs: { supply: { schedule: '* * * * * *' } }, budget: { computeUnitsPerDay: 1000 } }),
    );
    const r = await runCli(['plan', '-c', small]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'budget (budget.computeUnitsPerDay, else tier none: no API key): 1,000 CU/day',
    );
    expect(r.stdout).toContain("WARNING: steady state needs 86,400 CU/day, over the budget's 1,000");
    const json = JSON.parse((await runCli(['plan', '--json', '-c', small])).stdout) as {
      budget: { perDay: number; source: string };
    };
    // Every key the page says --json prints.
    const named = /`--json`\s+prints the same as JSON \(([^)]*)\)/.exec(section)?.[1] ?? '';
    const keys = codeSpans(named).filter((k) => k !== 'source');
    expect(keys).toContain('disk');
    expect(keys.filter((k) => !(k in json))).toEqual([]);
    expect(json.budget).toMatchObject({
      perDay: 1000,
      source: expect.stringContaining('budget.computeUnitsPerDay'),
    });
  });
});

describe('README and docs/cli.md about status', () => {
  it('says whether the service runs, the runs, the queue, the budget and the exports, and --json has every key the page names', async () => {
    expect(readmeClaim('status')).toBe(
      'service running?, last, next and overdue runs, queue, budget, exports',
    );
    // With a rewards job too: the page names the keys of its backfill.
    const withRewards = join(dir, 'with-rewards.json');
    writeFileSync(
      withRewards,
      JSON.stringify({
        jobs: {
          supply: { schedule: '* * * * * *' },
          transactions: { schedule: '* * * * *' },
          rewards: { schedule: '0 * * * *', addresses: [demoAddress('claims')] },
        },
        service: { queuePrefix: `claims${process.pid}` },
      }),
    );
    const env = { DATABASE_PATH: join(dir, 'glacier.db'), GLACIER_CONFIG: withRewards };
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const text = await runCli(['status'], env);
    expect(text.code, text.stderr).toBe(0);
    // One piece of output per claim of the README line.
    expect(text.stdout).toMatch(/^service: NOT RUNNING: no service has beaten/m); // service running?
    expect(text.stdout).toMatch(/^job\s+schedule\s+last run\s+outcome.*last success\s+next run$/m); // runs
    expect(text.stdout).toMatch(/^queue: waiting \d+, active \d+, delayed \d+, failed \d+$/m); // queue
    expect(text.stdout).toMatch(/^compute units today \(.*\): 0 of 1,200,000/m); // budget
    expect(text.stdout).toContain('exports in flight: none'); // exports
    expect(text.stdout).toContain("internal tables (the collector's bookkeeping)");

    const json = await runCli(['status', '--json'], env);
    const keys = new Set<string>();
    const collect = (value: unknown) => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          keys.add(k);
          collect(v);
        }
      }
    };
    collect(JSON.parse(json.stdout));
    const section = cliPage.get('`status`') ?? '';
    const jsonParagraph = section.slice(section.indexOf('`--json` prints'));
    const named = codeSpans(jsonParagraph).filter((s) => /^[a-zA-Z]+$/.test(s) && s !== 'null');
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((k) => !keys.has(k))).toEqual([]);
  }, 90_000);
});

describe('docs/collection.md about plan', () => {
  it("the example config's plan is what `plan --tier Free` prints for it (the backfill's days and counts move with the date)", async () => {
    const page = readFileSync(new URL('docs/collection.md', root), 'utf8');
    const command = '$ npx glacier-collector -c glacier-collector.example.yaml plan --tier Free\n';
    const start = page.indexOf(command);
    expect(start).toBeGreaterThan(0);
    const block = page
      .slice(start + command.length, page.indexOf('```', start))
      .trimEnd()
      .split('\n');
    const r = await runCli(['-c', 'glacier-collector.example.yaml', 'plan', '--tier', 'Free']);
    expect(r.code, r.stderr).toBe(0);
    // Numbers that move with today's date: the days of history and what follows from them.
    const dated = (line: string) =>
      line.startsWith('rewards first backfill:') ? line.replace(/[\d,.]+/g, 'N') : line;
    const printed = r.stdout.split('\n').map(dated);
    const claimed = block.filter((line) => !line.startsWith('(…')).map(dated);
    // Every line the page shows is printed, in the page's order.
    let at = 0;
    for (const line of claimed) {
      const found = printed.indexOf(line, at);
      expect(
        found,
        `docs/collection.md shows a line plan does not print: ${JSON.stringify(line)}`,
      ).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  }, 90_000);
});
