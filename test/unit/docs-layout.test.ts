import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sections } from '../support/markdown.js';

/**
 * docs/development.md's "Layout" against the tree: each entry of the picture is there, every folder
 * and file of src/ has its entry, a file an entry names is in that entry's folder, and src/commands/'s
 * entry names each of its files.
 */
const root = new URL('../..', import.meta.url).pathname;
const page = readFileSync(join(root, 'docs/development.md'), 'utf8');
const block = /```\n([\s\S]*?)```/.exec(sections(page).get('Layout') ?? '')?.[1] ?? '';

interface Entry {
  path: string;
  text: string;
}

/** `src/` and `jobs/` at the margin, `  cli.ts` or `  kernel/` under `src/`; a description runs on in deeper lines. */
function entries(picture: string): Entry[] {
  const out: Entry[] = [];
  let parent = '';
  for (const line of picture.split('\n')) {
    const m = /^( {0,2})(\S+?)(?: {2,}(.*))?$/.exec(line);
    if (m) {
      const [, indent, name, text = ''] = m;
      if (indent === '') parent = name!;
      out.push({ path: indent === '' ? name! : `${parent}${name}`, text });
    } else if (line.trim()) {
      const last = out.at(-1);
      if (last) last.text += ` ${line.trim()}`;
    }
  }
  return out;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

const layout = entries(block);
const named = (text: string) =>
  [...text.matchAll(/(?<![\w.<>*/-])(\w[\w.-]*\.(?:ts|mjs))\b/g)].map((m) => m[1]!);

describe('docs/development.md: the layout', () => {
  it('has its picture, each entry a folder or file of the tree', () => {
    expect(layout.length).toBeGreaterThan(10);
    expect(layout.filter((e) => !existsSync(join(root, e.path))).map((e) => e.path)).toEqual([]);
  });

  it('gives every folder and file of src/ an entry', () => {
    const entered = new Set(layout.map((e) => e.path.replace(/\/$/, '')));
    const missing = readdirSync(join(root, 'src'))
      .map((name) => `src/${name}`)
      .filter((path) => !entered.has(path));
    expect(missing).toEqual([]);
  });

  it("names only files that are in the entry's folder", () => {
    const wrong = layout
      .filter((e) => e.path.endsWith('/') && statSync(join(root, e.path)).isDirectory())
      .flatMap((e) => {
        const there = new Set(filesUnder(e.path));
        return named(e.text)
          .filter((f) => !there.has(f))
          .map((f) => `${e.path}: ${f}`);
      });
    expect(wrong).toEqual([]);
  });

  it('names each file of src/commands/', () => {
    const commands = layout.find((e) => e.path === 'src/commands/');
    expect(commands).toBeDefined();
    const said = new Set(named(commands!.text));
    expect(readdirSync(join(root, 'src/commands')).filter((f) => !said.has(f))).toEqual([]);
  });
});
