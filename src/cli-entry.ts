#!/usr/bin/env node
/**
 * The built CLI's entry (`dist/src/cli.js`, the package's `bin`; scripts/build.mjs): stack traces
 * mapped to the TypeScript files first (their source maps read only when a stack is formatted:
 * src/runtime/lazy-source-maps.ts), then the command line itself (src/cli.ts, a chunk of its own).
 */
import { installLazySourceMaps } from './runtime/lazy-source-maps.js';

installLazySourceMaps();
await import('./cli.js');
