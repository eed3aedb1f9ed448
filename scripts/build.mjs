// `npm run build` (also `npm ci`'s `prepare`): dist/ as an esbuild bundle, then dist/build-info.json
// (scripts/build-info.mjs). `tsc` only type-checks (`npm run typecheck`).
//
// Why a bundle: Node resolves and compiles every module file on its own, and the CLI's libraries are
// hundreds of files (commander, yaml, zod; bullmq, ioredis, undici, drizzle for the service). One file
// per lazy piece loads in a fraction of that. The entry is src/cli.ts (dist/src/cli.js, the `bin`);
// every `import()` in the sources (each command, each job handler, the queue and store backends)
// stays its own chunk, so a command loads only what it reaches. Chunks sit in dist/src/chunks/.
//
// Left outside the bundle, loaded from node_modules as before: the native addons (better-sqlite3,
// msgpackr's extractor, pg-native), and packages that find files of their own by path at run time
// (pino starts its transports' worker files by path; node-cron forks its daemon.cjs); and pg, which
// BullMQ requires only when the queue is on PostgreSQL: outside, a queue on Redis never loads it. Files the
// collector reads at run time (drizzle/, spec/, package.json, the example config) are found from the
// package root (src/runtime/package-root.ts), which is the same folder above dist/src/ as above src/.
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const EXTERNAL = [
  'better-sqlite3',
  'msgpackr',
  'msgpackr-extract',
  'pg',
  'pg-native',
  'pino',
  'pino-pretty',
  'node-cron',
  'bcryptjs',
];

// CommonJS libraries inside an ESM bundle call `require('events')` and read `__filename`: give every
// output file the CommonJS names, made from its own location.
const banner = [
  "import { createRequire as __glacierRequire } from 'node:module';",
  "import { fileURLToPath as __glacierPath } from 'node:url';",
  'const require = __glacierRequire(import.meta.url);',
  'const __filename = __glacierPath(import.meta.url);',
  "const __dirname = __glacierPath(new URL('.', import.meta.url));",
].join(' ');

// Commander requires node:child_process at its top for executable subcommands, which this CLI has
// none of; loading it (with net, dgram and the stream machinery under it) was a tenth of `--help`'s
// own time. Commander gets a stand-in that loads the real module on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'child_process', namespace: 'lazy-child-process' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      loader: 'js',
      contents:
        "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
    }));
  },
};

rmSync('dist', { recursive: true, force: true });

const result = await build({
  entryPoints: [{ in: 'src/cli-entry.ts', out: 'src/cli' }],
  outbase: '.',
  outdir: 'dist',
  entryNames: '[dir]/[name]',
  chunkNames: 'src/chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Stack traces name the TypeScript files: src/cli.ts turns source maps on before it imports the
  // rest (process.setSourceMapsEnabled), and the maps point back at src/, jobs/ and node_modules/.
  sourcemap: true,
  sourcesContent: false,
  external: EXTERNAL,
  banner: { js: banner },
  logLevel: 'warning',
  // Names stay as written: error messages and logs print class names (ConfigError, UpstreamError).
  keepNames: true,
  legalComments: 'none',
  metafile: Boolean(process.env.BUILD_METAFILE),
  plugins: [lazyChildProcess],
});

// BUILD_METAFILE=path: esbuild's account of which input went into which output (esbuild.github.io/analyze).
if (process.env.BUILD_METAFILE) writeFileSync(process.env.BUILD_METAFILE, JSON.stringify(result.metafile));
