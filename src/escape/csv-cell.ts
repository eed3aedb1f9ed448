import { stringify } from 'csv-stringify/sync';

/**
 * CSV cells for files people open in a spreadsheet. A cell that begins with `=`, `+`, `-`, `@`, a
 * tab or a carriage return is run as a formula by Excel, LibreOffice and Google Sheets (CSV
 * injection, https://owasp.org/www-community/attacks/CSV_Injection): such a cell gets a leading
 * `'`, which the spreadsheet shows as text. A plain decimal number (`-12.5`) is left alone, so a
 * negative amount stays a number a spreadsheet can sum. Quoting (commas, quotes, newlines) is
 * csv-stringify's.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
/** A decimal number as this project writes them: optional minus, digits, optional fraction. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** The cell's text, neutralised when a spreadsheet would run it as a formula. */
export function csvCell(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** A whole CSV document (header first), every cell through `csvCell`. */
export function stringifyCsv(rows: readonly (readonly string[])[]): string {
  return stringify(rows.map((row) => row.map(csvCell)));
}
