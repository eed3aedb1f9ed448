import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
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

  it('only src/store/dialects/ reads which database it is', () => {
    const offenders = sourceFiles('src')
      .filter((f) => !f.startsWith('src/store/dialects/') && !/^src\/store\/(sqlite|postgres)\.ts$/.test(f))
      .filter((f) => /\.dialect\s*[!=]==/.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
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
});
