// Module hooks (node --import test/support/import-trace.mjs): every module loaded, one URL a line,
// appended to $IMPORT_TRACE_FILE. CommonJS files required by a package's own entry are not seen;
// the package's entry is.
import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  appendFileSync(process.env.IMPORT_TRACE_FILE, `${url}\n`);
  return next(url, context);
}
