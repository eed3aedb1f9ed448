import { forTerminal } from '../escape/terminal.js';

/**
 * A plain-text table for terminals: the first row is the header, underlined with dashes. Cells may
 * hold upstream text (a node id, a reward type): their control characters are shown escaped.
 */
export interface TextTableOptions {
  /** Columns whose cells are right-aligned (numbers). */
  right?: readonly number[];
  /** Row indexes (of `rows`, header excluded) after which a dashed rule is drawn (before subtotals). */
  rulesBefore?: readonly number[];
}

export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TextTableOptions = {},
): string {
  const all = [header, ...rows].map((r) => r.map(forTerminal));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (options.right?.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = all as [string[], ...string[][]];
  const lines = [line(head), rule];
  body.forEach((r, i) => {
    if (options.rulesBefore?.includes(i)) lines.push(rule);
    lines.push(line(r));
  });
  return lines.join('\n');
}
