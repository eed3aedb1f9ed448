/** Just enough Markdown reading for the docs tests: tables, sections, code spans. */

export interface MarkdownRow {
  cells: string[];
  /** The heading the table is under ('' before the first heading). */
  section: string;
  line: number;
}

/** The body rows of every table (header and separator rows skipped), with their section. */
export function tableRows(markdown: string): MarkdownRow[] {
  const rows: MarkdownRow[] = [];
  let section = '';
  let inCode = false;
  let tableLine = 0;
  markdown.split('\n').forEach((text, i) => {
    if (text.startsWith('```')) inCode = !inCode;
    if (inCode) return;
    const heading = /^#{1,6}\s+(.*)$/.exec(text);
    if (heading) section = heading[1]!.trim();
    if (!text.trimStart().startsWith('|')) {
      tableLine = 0;
      return;
    }
    tableLine++;
    if (tableLine <= 2) return; // the header and the |---| line
    const cells = text
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
    rows.push({ cells, section, line: i + 1 });
  });
  return rows;
}

/** The contents of the code spans of a piece of Markdown: "`a`, `b` and c" → ['a', 'b']. */
export function codeSpans(text: string): string[] {
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
  return [...prose.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** A cell that is exactly one code span, e.g. "`30s`", → its content; anything else → undefined. */
export function onlyCodeSpan(text: string): string | undefined {
  return /^`([^`]+)`$/.exec(text.trim())?.[1];
}

/** The headings of a document, text only. */
export function headings(markdown: string): string[] {
  let inCode = false;
  const out: string[] = [];
  for (const text of markdown.split('\n')) {
    if (text.startsWith('```')) inCode = !inCode;
    const m = !inCode && /^#{1,6}\s+(.*)$/.exec(text);
    if (m) out.push(m[1]!.trim());
  }
  return out;
}

/** The text of each section, by its heading (the lines up to the next heading of any level). */
export function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  let current = '';
  let inCode = false;
  for (const text of markdown.split('\n')) {
    if (text.startsWith('```')) inCode = !inCode;
    const m = !inCode && /^#{1,6}\s+(.*)$/.exec(text);
    if (m) {
      current = m[1]!.trim();
      out.set(current, '');
    } else out.set(current, `${out.get(current) ?? ''}${text}\n`);
  }
  return out;
}
