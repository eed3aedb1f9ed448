import { distance } from 'fastest-levenshtein';

/** "usage_Metrics" and "usage-metrics" read the same: case, dashes and underscores aside. */
const fold = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');

/**
 * The candidate a misspelt `word` most likely meant, for a "did you mean" hint: the nearest by
 * edit distance (case, dashes and underscores ignored), if it is near enough to be a typo (at most
 * a third of the word's letters, and 3 edits) rather than another word.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const w = fold(word);
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = distance(w, fold(name));
    if (!best || d < best.d) best = { name, d };
  }
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  return best && best.d <= limit ? best.name : undefined;
}
