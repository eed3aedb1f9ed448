/** A plain-text table for terminals: the first row is the header, underlined with dashes. */
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
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (options.right?.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const lines = [line(header), rule];
  rows.forEach((r, i) => {
    if (options.rulesBefore?.includes(i)) lines.push(rule);
    lines.push(line(r));
  });
  return lines.join('\n');
}
