import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../src/kernel/job-names.js';
import { codeSpans, sections, tableRows } from '../support/markdown.js';

/**
 * docs/development.md says what each folder may import; this holds the code to it. The table is
 * read from the page, so changing a rule is one line of the docs, and a new import across the
 * layers fails here until the page (and a reviewer) agrees.
 */
const root = join(dirname(new URL(import.meta.url).pathname), '../..');
const page = readFileSync(join(root, 'docs/development.md'), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The folder a file belongs to as the table names it: `src/kernel`, `jobs`, `src/cli.ts`. */
function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'jobs') return 'jobs';
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : file;
}

const rules = new Map(
  tableRows(sections(page).get('What each folder may import') ?? '').map((row) => {
    const [folder, allowed] = row.cells;
    const unit = codeSpans(folder ?? '')[0] ?? '';
    const all = /every folder of `src\/`/.test(allowed ?? '');
    return [unit, { all, allowed: new Set(codeSpans(allowed ?? '')) }] as const;
  }),
);

describe('layout: each folder imports only what docs/development.md allows', () => {
  it('the table names every folder of src/ and jobs/', () => {
    const units = new Set([...sourceFiles('src'), ...sourceFiles('jobs')].map(unitOf));
    expect([...units].filter((u) => !rules.has(u)).sort()).toEqual([]);
  });

  it('no import crosses a line the table does not draw', () => {
    const problems: string[] = [];
    for (const file of [...sourceFiles('src'), ...sourceFiles('jobs')]) {
      const from = unitOf(file);
      const rule = rules.get(from);
      if (!rule) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = relative(root, normalize(join(root, dirname(file), m[1]!)));
        const to = unitOf(target.replace(/\.js$/, '.ts'));
        if (to === from) continue;
        const ok = rule.all ? to.startsWith('src/') : rule.allowed.has(to);
        if (!ok) problems.push(`${file} imports ${target} (${to}): not in ${from}'s row`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('no code asks which database it is: the driver is the dialect', () => {
    // `sql.dialect === 'sqlite'`: a switch on the tag, where the connection's own method belongs.
    const offenders = [...sourceFiles('src'), ...sourceFiles('jobs')].filter((f) =>
      /\.dialect\s*[!=]==|[!=]==\s*[\w.]*\.dialect\b|switch\s*\([\w.]*\.dialect\)/.test(
        readFileSync(join(root, f), 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('nothing outside src/store/ names a database driver or a Drizzle dialect', () => {
    /**
     * Files outside src/store/ that may load a database library, and why: none talks to the store.
     * (Where the store is, `StoreLocation`'s kind read from the config, is configuration, not dialect.)
     */
    const exceptions = new Map([
      // The BullMQ-compatible queue on PostgreSQL: its own pool and schema, not the store's.
      ['src/queue/postgres-backend.ts', 'pg'],
      // Its watch (clock offset, a lost schema, a read-only database) on that same pool: types only.
      ['src/queue/postgres-watch.ts', 'pg'],
      // Its lock keeper and the guard of a run's end, on that same pool: types only.
      ['src/queue/postgres-locks.ts', 'pg'],
    ]);
    const problems: string[] = [];
    for (const file of [...sourceFiles('src'), ...sourceFiles('jobs')]) {
      if (file.startsWith('src/store/')) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(
        /(?:from|import\()\s*['"]((?:better-sqlite3|pg|pg-[\w-]+|postgres|drizzle-orm\/(?:[\w-]*sqlite[\w-]*|pg-core|node-postgres|postgres-js))(?:\/[^'"]*)?)['"]/g,
      )) {
        if (exceptions.get(file) !== m[1]) problems.push(`${file} imports ${m[1]}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('no library is reached through a private path or a cast into its internals', () => {
    const problems: string[] = [];
    for (const file of [...sourceFiles('src'), ...sourceFiles('jobs')]) {
      const text = readFileSync(join(root, file), 'utf8');
      // `node-cron/dist/…`, `bullmq/dist/esm/classes/…`: a library's files rather than its exports.
      for (const m of text.matchAll(
        /(?:from|import\()\s*['"]((?:@[^/'"]+\/)?[^./'"][^/'"]*\/(?:dist|lib|src|build|internal)\b[^'"]*)['"]/g,
      )) {
        problems.push(`${file} imports ${m[1]}`);
      }
      // `(task as unknown as { timeMatcher?: … })`: a property the library's types do not offer.
      for (const m of text.matchAll(/as unknown as \{[^}]*\}\)?\./g)) problems.push(`${file}: ${m[0]}`);
    }
    expect(problems).toEqual([]);
  });

  it('nothing in src/ imports jobs/ but the entry point', () => {
    const offenders = sourceFiles('src')
      .filter((f) => f !== 'src/cli.ts')
      .filter((f) => /['"](?:\.\.\/)+jobs\//.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it("a job's name is written once, in src/kernel/job-names.ts: definitions, handlers (ctx.job) and readers import it", () => {
    const problems: string[] = [];
    const files = [...sourceFiles('src'), ...sourceFiles('jobs'), ...sourceFiles('scripts')].filter(
      (f) => f !== 'src/kernel/job-names.ts',
    );
    for (const file of files) {
      for (const hit of jobNameLiterals(readFileSync(join(root, file), 'utf8')))
        problems.push(`${file}: ${hit}`);
    }
    expect(problems).toEqual([]);
    // The check sees the forms the names were written in before they had one home.
    for (const old of [
      "job: 'transactions',",
      "readCursor<UsageCursor>(ctx.store, 'usage-metrics', scopeKey)",
      "if (opts.reload && name !== 'exports')",
      "export const REWARDS_JOB = 'rewards';",
      "const where = { job: 'exports', scope: 'operations' };",
      "findRejectedIds(\n    ctx.store,\n    'signatures',",
    ]) {
      expect(jobNameLiterals(old), old).not.toEqual([]);
    }
    // …and not the endpoints and tables that share a job's name.
    expect(
      jobNameLiterals("recheckRecord('transactions', raw); deleteInBatches(store, 'transactions')"),
    ).toEqual([]);
  });
});

/**
 * Where a job's name is written as a literal: as a job (`job: 'x'`, `name !== 'x'`, a cursor's or a
 * record's job, a run's), or a name only a job has (`usage-metrics`, `export-poll`). Endpoints,
 * tables, config keys and metric families that share a job's name are not job names.
 */
function jobNameLiterals(text: string): string[] {
  const names = Object.values(JOB_NAMES).join('|');
  const q = `['"](${names})['"]`;
  const patterns = [
    new RegExp(`\\bjob\\s*(?::|[!=]==?)\\s*${q}`, 'g'),
    new RegExp(`\\bname\\s*[!=]==?\\s*${q}`, 'g'),
    new RegExp(
      `\\b(?:readCursor|writeCursor|advanceCursor|cursorLock|findRejectedIds|listRejectedRecords|deleteRejectedRecords|updateRejectedVerdict|startJobRun|runHandler|createJobContext|retryRejectedRecords)\\b(?:<[^>]*>)?\\([^;]{0,80}?${q}`,
      'g',
    ),
    new RegExp(`_JOB\\s*=\\s*${q}`, 'g'),
    /['"](?:usage-metrics|export-poll)['"]/g,
  ];
  // Comments may name a job as people do; only code counts.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return patterns.flatMap((p) => [...code.matchAll(p)].map((m) => m[0].replace(/\s+/g, ' ')));
}
