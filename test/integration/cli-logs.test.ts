import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimulatorHandle, startSimulator } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/** LOG_FORMAT and NO_COLOR: one readable line per event in a terminal, JSON lines for machines. */

let sim: SimulatorHandle;
let dir: string;
let cleanup: () => void;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 3 });
  ({ dir, cleanup } = tempDir('glacier-logs-'));
  const configPath = join(dir, 'glacier.json');
  writeFileSync(configPath, JSON.stringify({ jobs: { supply: { schedule: '* * * * *' } } }));
  env = { GLACIER_BASE_URL: sim.url, DATABASE_PATH: join(dir, 'glacier.db'), GLACIER_CONFIG: configPath };
});

afterAll(async () => {
  await sim?.close();
  cleanup?.();
});

/** The output lines that carry the run's log event. */
const eventLines = (out: string) => out.split(/\r?\n/).filter((l) => l.includes('job run'));
// ESC [ 3x m / 9x m: a foreground colour (built from text: Biome refuses control characters in regex literals).
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[(3\\d|9\\d)m`);

describe('log format', () => {
  it('in a terminal: one pretty line per event, coloured unless NO_COLOR is set', async () => {
    const coloured = await runCli(['run', 'supply'], env, { terminal: true, timeoutMs: 60_000 });
    expect(coloured.code, coloured.stdout).toBe(0);
    const [line] = eventLines(coloured.stdout);
    expect(line).toMatch(ANSI_COLOUR);
    const plain = await runCli(
      ['run', 'supply'],
      { ...env, NO_COLOR: '1' },
      { terminal: true, timeoutMs: 60_000 },
    );
    expect(plain.code, plain.stdout).toBe(0);
    const lines = eventLines(plain.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(ANSI_COLOUR);
    // Time, level, message and its fields, all on the one line.
    expect(lines[0]).toMatch(/\[\d\d:\d\d:\d\d\] INFO: job run \{"job":"supply",.*"status":"succeeded".*\}$/);
  });

  it('LOG_FORMAT=json in a terminal gives JSON lines; LOG_FORMAT=pretty in a pipe gives pretty lines', async () => {
    const json = await runCli(
      ['run', 'supply'],
      { ...env, LOG_FORMAT: 'json' },
      { terminal: true, timeoutMs: 60_000 },
    );
    expect(json.code, json.stdout).toBe(0);
    const [line] = eventLines(json.stdout);
    expect(JSON.parse(line!.slice(line!.indexOf('{')))).toMatchObject({ msg: 'job run', job: 'supply' });

    const pretty = await runCli(['run', 'supply'], { ...env, LOG_FORMAT: 'pretty', NO_COLOR: '1' });
    expect(pretty.code, pretty.stderr).toBe(0);
    expect(eventLines(pretty.stdout)).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: job run \{/),
    ]);

    const piped = await runCli(['run', 'supply'], env);
    expect(JSON.parse(eventLines(piped.stdout)[0]!)).toMatchObject({ msg: 'job run' });
  });

  it('an unknown LOG_FORMAT is exit 2 naming it and the valid ones', async () => {
    const r = await runCli(['run', 'supply'], { ...env, LOG_FORMAT: 'loud' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('LOG_FORMAT = "loud"');
    expect(r.stderr).toContain('"json"|"pretty"');
  });
});
