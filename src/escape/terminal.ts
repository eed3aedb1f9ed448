/**
 * Upstream text printed to a terminal (`status`'s last error, the report table, pretty logs): its
 * control and escape sequences are shown, not executed. Measured before: an error message holding
 * `ESC [2J ESC [H` cleared the operator's screen when `status` printed it.
 */
import { makeVisible } from './control.js';

/** `text` with every control character as a visible escape (`\x1b[2J`); printable text unchanged. */
export function forTerminal(text: string): string {
  return makeVisible(text);
}
