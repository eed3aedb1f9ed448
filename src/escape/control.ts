/**
 * Characters that act instead of being shown: C0 controls (ESC starts terminal sequences, BEL
 * rings, CR overwrites a line), DEL, C1 controls (CSI 0x9b is ESC [ on some terminals), the Unicode
 * line and paragraph separators, and the bidirectional overrides and isolates that reorder what a
 * reader sees ("Trojan Source").
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** True when `text` holds any of those characters. */
export function hasControl(text: string): boolean {
  CONTROL.lastIndex = 0;
  const found = CONTROL.test(text);
  CONTROL.lastIndex = 0;
  return found;
}

/** Each of those characters as its escape, shown and not acted on: ESC as `\x1b`, U+202E as `\u202e`. */
export function makeVisible(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
