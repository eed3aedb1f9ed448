/**
 * `npm run bench [-- <figure module>... --runs N --scale X --compare]`: runs the figure modules of
 * bench/figures/ (every `*.ts` there exports `run(): Promise<Figure[]>`; adding a file adds its
 * figures, nothing else to change), prints one table and merges the figures into bench/results.json
 * (committed: the last recorded results). Every figure is a ratio against a baseline measured in
 * the same run; values are medians of `--runs` repetitions (each module repeats its own
 * measurements). `--compare` holds the run against bench/results.json instead of writing it: every
 * figure whose ratio is more than 15% worse is named, and the exit status is 1 (`--record` writes
 * it too). The smoke test
 * (test/bench/bench-smoke.test.ts) runs every module once at a tiny scale in `npm test`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { compareFigures, formatComparison } from './compare.js';
import { benchOptions, type Figure, setBenchOptions } from './lib.js';

const figuresDir = new URL('./figures/', import.meta.url);
const resultsFile = new URL('./results.json', import.meta.url);

interface StoredFigure extends Figure {
  module: string;
  measuredAt: string;
  runs: number;
  scale: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '3' },
    scale: { type: 'string', default: '1' },
    compare: { type: 'boolean' },
    record: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
const available = readdirSync(figuresDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
if (values.help) {
  console.log(
    `npm run bench -- [module...] [--runs N] [--scale X] [--compare]\n` +
      `  --compare: hold the run against bench/results.json (not written), exit 1 if a figure is >15% worse\n` +
      `  --record: with --compare, write the run into bench/results.json too\n` +
      `modules: ${available.join(', ')}`,
  );
  process.exit(0);
}
const unknown = positionals.filter((p) => !available.includes(p));
if (unknown.length) {
  console.error(`unknown figure module(s): ${unknown.join(', ')}; modules: ${available.join(', ')}`);
  process.exit(2);
}
setBenchOptions({ runs: Math.max(1, Number(values.runs)), scale: Number(values.scale) });
const selected = positionals.length ? positionals : available;

const measured: StoredFigure[] = [];
const failures: string[] = [];
for (const name of selected) {
  const started = Date.now();
  process.stderr.write(`bench: ${name}...\n`);
  try {
    const mod = (await import(new URL(`${name}.ts`, figuresDir).href)) as { run(): Promise<Figure[]> };
    const at = new Date().toISOString();
    for (const f of await mod.run()) {
      measured.push({ ...f, module: name, measuredAt: at, ...benchOptions() });
    }
    process.stderr.write(`bench: ${name} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (err) {
    failures.push(name);
    console.error(`bench: ${name} failed:`, err);
  }
}

printTable(measured);

// Merge: a module that ran replaces all its figures; the others keep their last measurement.
const previous: StoredFigure[] = existsSync(resultsFile)
  ? ((JSON.parse(readFileSync(resultsFile, 'utf8')) as { figures?: StoredFigure[] }).figures ?? [])
  : [];
if (values.compare) {
  const comparison = compareFigures(previous, measured);
  console.log(`\n${formatComparison(comparison)}`);
  if (comparison.some((c) => c.worse) || failures.length) process.exitCode = 1;
  if (!values.record) process.exit();
}
const ran = new Set(measured.map((f) => f.module));
const figures = [...previous.filter((f) => f.module !== undefined && !ran.has(f.module)), ...measured].sort(
  (a, b) => a.module.localeCompare(b.module),
);
writeFileSync(
  resultsFile,
  `${JSON.stringify(
    {
      updatedAt: new Date().toISOString(),
      machine: { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model },
      figures: figures.map((f) => ({ ...f, ratio: Number.isFinite(f.ratio) ? f.ratio : null })),
    },
    null,
    2,
  )}\n`,
);
console.log(`\nwrote ${figures.length} figures to bench/results.json`);
if (failures.length) process.exitCode = 1;

function printTable(rows: readonly Figure[]): void {
  const num = (x: number, unit: string) => {
    if (!Number.isFinite(x)) return '-';
    if (Number.isInteger(x) && unit !== 'B') return `${x}${unit ? ` ${unit}` : ''}`;
    if (unit === 'B') return x >= 1024 * 1024 ? `${(x / 1024 / 1024).toFixed(1)} MiB` : `${Math.round(x)} B`;
    const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 3;
    return `${x.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
  };
  const goal = (f: Figure) => {
    if (!f.goal) return '';
    const on = f.goal.on === 'value' ? 'value' : 'ratio';
    const parts = [];
    if (f.goal.min !== undefined) parts.push(`≥ ${f.goal.min}`);
    if (f.goal.max !== undefined) parts.push(`≤ ${f.goal.max}`);
    return `${on} ${parts.join(', ')}`;
  };
  const table = rows.map((f) => [
    f.id,
    num(f.value, f.unit),
    `${num(f.baseline, f.unit)} (${f.baselineLabel})`,
    Number.isFinite(f.ratio) ? f.ratio.toFixed(3) : '-',
    goal(f),
    f.met === undefined ? '' : f.met ? 'yes' : 'NO',
  ]);
  const header = ['figure', 'value', 'baseline', 'ratio', 'goal', 'met'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const { runs, scale } = benchOptions();
  console.log(`\nglacier-collector bench: medians of ${runs} run(s), scale ${scale}\n`);
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of table) console.log(line(r));
  const notes = rows.filter((f) => f.note);
  if (notes.length) {
    console.log('');
    for (const f of notes) console.log(`${f.id}: ${f.note}`);
  }
}
