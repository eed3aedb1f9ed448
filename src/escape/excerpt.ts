/**
 * What an error text may quote of anything an upstream sent (a URL, a body, a header): a short
 * excerpt with its control characters made visible, so a log line, a `job_runs` row or a terminal
 * never receives a hostile upstream's escape sequences or megabytes.
 */
import { makeVisible } from './control.js';

/** Characters quoted at most; longer text is cut and ends with "…". */
export const EXCERPT_LENGTH = 200;

export function excerpt(text: string, max = EXCERPT_LENGTH): string {
  // Cut before escaping as well, so a huge text is never copied whole.
  const head = text.length > max ? text.slice(0, max) : text;
  const shown = makeVisible(head);
  return shown.length > max || text.length > max ? `${shown.slice(0, max)}…` : shown;
}
