#!/usr/bin/env node
/**
 * The built CLI's entry (`dist/src/cli.js`, the package's `bin`; scripts/build.mjs): source maps on
 * first, so a stack trace from any chunk loaded after names the TypeScript file and line, then the
 * command line itself (src/cli.ts, a chunk of its own).
 */
process.setSourceMapsEnabled(true);
await import('./cli.js');
