import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { codeSpans, onlyCodeSpan, sections } from '../support/markdown.js';

/**
 * docs/cli.md against commander's own tree: every command (leaves: `config check`, `report
 * rewards`) has a section, and every option of it is named there.
 */

// src/cli.ts runs its main() when imported: give it a harmless command line (`--version`: as the
// program overrides exit, commander returns instead of exiting) and keep its one line quiet.
const { argv, stdout } = process;
const write = stdout.write;
process.argv = [argv[0]!, 'glacier-collector', '--version'];
stdout.write = (() => true) as typeof stdout.write;
const { buildProgram } = await import('../../src/cli.js').finally(() => {
  process.argv = argv;
  stdout.write = write;
});

function leafCommands(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const p = [...path, sub.name()];
    return sub.commands.length ? leafCommands(sub, p) : [{ path: p.join(' '), command: sub }];
  });
}

const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
const bySection = sections(page);
/** "### `report rewards`" → report rewards */
const documented = new Map(
  [...bySection.entries()].flatMap(([heading, text]) => {
    const name = onlyCodeSpan(heading);
    return name ? [[name, text] as const] : [];
  }),
);
const program = buildProgram();
const commands = leafCommands(program);

describe('docs/cli.md', () => {
  it('has a section for every command, and no other', () => {
    expect([...documented.keys()].sort()).toEqual(commands.map((c) => c.path).sort());
  });

  for (const { path, command } of commands) {
    it(`names every option of ${path}`, () => {
      const spans = codeSpans(documented.get(path) ?? '').join(' ');
      const missing = command.options.map((o) => o.long ?? o.short!).filter((flag) => !spans.includes(flag));
      expect(missing).toEqual([]);
    });
  }

  it('names the global options', () => {
    const spans = codeSpans(bySection.get('Command line') ?? '').join(' ');
    expect(program.options.map((o) => o.long!).filter((flag) => !spans.includes(flag))).toEqual([]);
  });
});
